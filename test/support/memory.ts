import v8 from "node:v8";
import vm from "node:vm";

/**
 * The process's memory after full garbage collections (the server under test runs in this process), so that
 * what is left is what is still referenced. `--expose-gc` is turned on at run time for this.
 */
export async function settledMemory(): Promise<NodeJS.MemoryUsage> {
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc") as () => void;
  for (let round = 0; round < 3; round++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return process.memoryUsage();
}

export const megabytes = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
