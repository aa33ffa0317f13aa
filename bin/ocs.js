#!/usr/bin/env node
// `npx ocs <verb>`: the operator CLI (SPEC §8). The CLI is TypeScript run through tsx, like `npm start`.
import { register } from "tsx/esm/api";

register();
await import("../src/cli/main.ts");
