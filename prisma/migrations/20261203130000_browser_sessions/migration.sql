-- AlterTable
ALTER TABLE "ViewerLink" ADD COLUMN "expiresAt" DATETIME;

-- CreateTable
CREATE TABLE "BrowserSession" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "secretHash" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "viewerLinkId" TEXT,
    "userAgent" TEXT NOT NULL DEFAULT '',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSeenAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME NOT NULL,
    "revokedAt" DATETIME,
    CONSTRAINT "BrowserSession_viewerLinkId_fkey" FOREIGN KEY ("viewerLinkId") REFERENCES "ViewerLink" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "BrowserSession_secretHash_key" ON "BrowserSession"("secretHash");

-- CreateIndex
CREATE INDEX "BrowserSession_viewerLinkId_idx" ON "BrowserSession"("viewerLinkId");
