// The extension's `mutiny.*` settings as the server wants them. Pure.

/** The settings `mutiny lsp` reads (see server/src/lsp/settings.rs). */
export interface ServerSettings {
    onSave: boolean;
    onOpen: boolean;
    jobs: number | null;
    timeoutMultiplier: number | null;
    /** null: `.cargo/mutants.toml`'s `test_tool`, else cargo. */
    testTool: 'cargo' | 'nextest' | null;
    additionalCargoArgs: string[];
    scope: 'file' | 'changedFunctions';
    /** rust-analyzer's analysis: no build for mutants it rules out, resolved types in hovers. */
    analysis: boolean;
}

export const DEFAULT_SETTINGS: ServerSettings = {
    onSave: true,
    onOpen: false,
    jobs: null,
    timeoutMultiplier: null,
    testTool: null,
    additionalCargoArgs: [],
    scope: 'changedFunctions',
    analysis: true,
};

/** The keys of `ServerSettings`, which are also the `mutiny.<key>` settings. */
export const SERVER_KEYS = Object.keys(DEFAULT_SETTINGS) as (keyof ServerSettings)[];

/** Settings that need the server restarted rather than told. */
export const RESTART_KEYS = ['mutiny.server.path'];

/**
 * The server's settings from the `mutiny` configuration section (anything
 * with a `get(key)`, such as a `WorkspaceConfiguration`): only the server's
 * keys, values of the wrong type replaced by the defaults, so that one bad
 * value in settings.json cannot make the server refuse all of them.
 */
export function serverSettings(config: { get(key: string): unknown }): ServerSettings {
    const value = (key: keyof ServerSettings): unknown => config.get(key);
    const bool = (key: 'onSave' | 'onOpen' | 'analysis'): boolean => {
        const v = value(key);
        return typeof v === 'boolean' ? v : DEFAULT_SETTINGS[key];
    };
    const positive = (key: 'jobs' | 'timeoutMultiplier', integer: boolean): number | null => {
        const v = value(key);
        if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
            return null;
        }
        return integer ? Math.max(1, Math.round(v)) : v;
    };
    const oneOf = <T extends string | null>(key: keyof ServerSettings, allowed: readonly T[], fallback: T): T => {
        const v = value(key);
        return typeof v === 'string' && (allowed as readonly string[]).includes(v) ? (v as T) : fallback;
    };
    const args = value('additionalCargoArgs');
    return {
        onSave: bool('onSave'),
        onOpen: bool('onOpen'),
        jobs: positive('jobs', true),
        timeoutMultiplier: positive('timeoutMultiplier', false),
        testTool: oneOf('testTool', ['cargo', 'nextest'] as const, DEFAULT_SETTINGS.testTool),
        additionalCargoArgs: Array.isArray(args) ? args.filter((a): a is string => typeof a === 'string') : [],
        scope: oneOf('scope', ['file', 'changedFunctions'] as const, DEFAULT_SETTINGS.scope),
        analysis: bool('analysis'),
    };
}
