/** Types of bin/build.js, for the test of the server's build. */
export declare const ROOT: string
export declare const OUTPUT: string
export declare function isStale(): boolean
export declare function build(): Promise<void>
