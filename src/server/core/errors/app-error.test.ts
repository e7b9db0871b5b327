import { TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { describe, expect, it } from "vitest";
import { appErrorCodeOf, HTTP_STATUS, type AppErrorCode } from "./app-error";
import { asError, messageOf } from "../../../shared/error-message";

const CODES = Object.keys(HTTP_STATUS) as AppErrorCode[];

describe("the one error map", () => {
  it("answers each code with the status tRPC answers it with, so downloads, the worker API and tRPC agree", () => {
    for (const code of CODES)
      expect([code, HTTP_STATUS[code]]).toEqual([code, getHTTPStatusCodeFromError(new TRPCError({ code }))]);
    expect(HTTP_STATUS.PRECONDITION_FAILED).toBe(412);
  });

  it("reads a status back as its code, and none for a status no AppError answers with", () => {
    for (const code of CODES) expect(appErrorCodeOf(HTTP_STATUS[code])).toBe(code);
    expect(appErrorCodeOf(418)).toBeNull();
    expect(appErrorCodeOf(200)).toBeNull();
  });

  it("takes the message of anything thrown", () => {
    expect(messageOf(new Error("disk full"))).toBe("disk full");
    expect(messageOf("plain text")).toBe("plain text");
    expect(messageOf({ toString: () => "an object" })).toBe("an object");
    const error = new Error("kept");
    expect(asError(error)).toBe(error);
    expect(asError(42)).toBeInstanceOf(Error);
    expect(asError(42).message).toBe("42");
  });
});
