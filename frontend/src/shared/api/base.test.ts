import { describe, expect, it } from "vitest";
import { apiRoot, apiUrl } from "./base";

describe("API base", () => {
  it("is the folder index.html came from, at the root or under a sub-path, whatever the route", () => {
    expect(apiRoot("http://127.0.0.1:8000/")).toBe("http://127.0.0.1:8000");
    expect(apiRoot("https://host/research/")).toBe("https://host/research");
    expect(apiRoot("https://host/research/index.html?x=1#/runs/abc")).toBe("https://host/research");
    expect(apiUrl("/api/runs/abc/events?after=3", "https://host/research/#/runs/abc")).toBe(
      "https://host/research/api/runs/abc/events?after=3",
    );
  });
});
