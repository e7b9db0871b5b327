import type { Metadata } from "next";
import type { ReactNode } from "react";
import "./globals.css";
import { CommandPalette } from "./_components/command-palette";
import { Nav } from "./_components/nav";
import { Providers } from "./_components/providers";
import { HealthBanner } from "./_components/system-health";

export const metadata: Metadata = {
  title: "invariant-web",
  description: "Persistent, isolated environments for coding agents",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen antialiased">
        <Providers>
          <Nav />
          <CommandPalette />
          <HealthBanner />
          <main className="mx-auto max-w-6xl px-6 py-8">{children}</main>
        </Providers>
      </body>
    </html>
  );
}
