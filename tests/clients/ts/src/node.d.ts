// The two Node globals the programs use (no @types/node: nothing else of Node is needed).
declare const process: {
  readonly env: Record<string, string | undefined>;
  exit(code: number): never;
};
