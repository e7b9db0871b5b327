"use client";
import { useEffect, useState } from "react";
import { formatElapsed } from "../study-format";

/** Time since `since`, ticking every second while shown. */
export function Elapsed({ since }: { since: string }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return <span className="tabular-nums">{formatElapsed((now - new Date(since).getTime()) / 1000)}</span>;
}
