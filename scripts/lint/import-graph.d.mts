export function moduleOf(file: string): string | null
export function boundaryViolation(file: string, target: string): string | null
export function importsOf(file: string, text: string): string[]
export function importCircles(): string[][]
export function sourceFiles(): string[]
export function relativeToRoot(file: string): string
