/** Types of bin/build-native.js, for the server's loader and the tests that build the malloc_trim module. */
export declare const ROOT: string
export declare const NATIVE_SOURCE: string
export declare const NATIVE_OUTPUT: string
export declare function sha256Of(file: string): string
export declare function digestFileOf(output: string): string
export declare function isNativeStale(output?: string): boolean
export declare function buildNative(
  output?: string,
  options?: { timeoutMs?: number },
): { built: true } | { built: false; reason: string; tell?: true }
