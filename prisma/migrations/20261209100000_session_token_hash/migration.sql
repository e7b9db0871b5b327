-- The session's run token is kept only as its hash (sessions.queries.ts hashes what a running session still
-- holds in plain text the first time the web process starts after this); a finished session needs none.
ALTER TABLE "Session" RENAME COLUMN "runToken" TO "runTokenHash";
UPDATE "Session" SET "runTokenHash" = NULL WHERE "state" = 'finished';

-- What the dashboard undid after a session (planted git hooks or executable git config), for its page.
ALTER TABLE "Session" ADD COLUMN "notice" TEXT;
