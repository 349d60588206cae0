/** Types of bin/build-ui.js, for the tests that build the web UI before starting a browser. */
export declare const ROOT: string
export declare const WEB: string
export declare const UI_OUTPUT: string
export declare function isUiStale(): boolean
export declare function buildUi(): Promise<void>
export declare function ensureUi(): Promise<boolean>
