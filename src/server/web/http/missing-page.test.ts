import type http from "node:http";
import { describe, expect, it } from "vitest";
import type { PageTarget } from "../pages/page-targets";
import { MISSING_HEADER, routeMissingPage } from "./missing-page";

function request(url: string, headers: http.IncomingHttpHeaders = {}, method = "GET"): http.IncomingMessage {
  return { url, method, headers: { ...headers } } as http.IncomingMessage;
}

const pages = (known: string[]) => ({
  exists: (target: PageTarget) =>
    Promise.resolve(known.includes("studyId" in target ? target.studyId : JSON.stringify(target))),
});

describe("routeMissingPage", () => {
  it("sends a page whose record is missing to the 404 page, naming the kind, and keeps the query", async () => {
    const req = request("/studies/gone?x=1");
    await routeMissingPage({ req, pathname: "/studies/gone", pages: pages([]) });
    expect(req.url).toBe("/_missing?x=1");
    expect(req.headers[MISSING_HEADER]).toBe("study /studies/gone");
  });

  it("leaves pages whose record exists, and pages that name none", async () => {
    const study = request("/studies/s1");
    await routeMissingPage({ req: study, pathname: "/studies/s1", pages: pages(["s1"]) });
    expect(study.url).toBe("/studies/s1");
    const list = request("/studies");
    await routeMissingPage({ req: list, pathname: "/studies", pages: pages([]) });
    expect(list.url).toBe("/studies");
  });

  it("drops the header a client sends itself, whatever the method", async () => {
    for (const method of ["GET", "POST"]) {
      const req = request("/studies/s1", { [MISSING_HEADER]: "study /studies/forged" }, method);
      await routeMissingPage({ req, pathname: "/studies/s1", pages: pages(["s1"]) });
      expect(req.headers[MISSING_HEADER]).toBeUndefined();
      expect(req.url).toBe("/studies/s1");
    }
  });
});
