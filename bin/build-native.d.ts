/** Types of bin/build-native.js, for the tests that build the malloc_trim module. */
export declare const ROOT: string
export declare const NATIVE_SOURCE: string
export declare const NATIVE_OUTPUT: string
export declare function isNativeStale(output?: string): boolean
export declare function buildNative(
  output?: string,
): { built: true } | { built: false; reason: string; compilerFailed?: true }
