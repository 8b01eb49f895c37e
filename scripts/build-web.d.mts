/** Types of build-web.mjs for the TypeScript callers (the browser tests). */
export const consoleSource: string;
export const consoleOut: string;
export function consoleIsStale(): boolean;
export function buildConsole(options?: { logLevel?: 'info' | 'warn' | 'error' | 'silent' }): Promise<void>;
