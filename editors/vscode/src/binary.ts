// Finding the `mutiny` binary from the `mutiny.server.path` setting.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const DEFAULT_BINARY = 'mutiny';

export const NOT_FOUND_FIX = 'install it with `cargo install --path server` or set mutiny.server.path';

export interface LookupEnv {
    /** The PATH variable. */
    pathVariable: string | undefined;
    /** The first workspace folder, for relative paths and `${workspaceFolder}`. */
    workspaceFolder: string | undefined;
    home: string;
    /** Whether a file exists and may be executed. */
    isExecutable(file: string): boolean;
    platform: NodeJS.Platform;
}

/** The result of a lookup: the binary found, or what was tried. */
export type Lookup =
    | { found: true; path: string }
    | { found: false; setting: string; message: string };

/**
 * Where the setting's binary is: a bare name is looked up on PATH (like a
 * shell does); anything with a slash is a path, `~` and
 * `${workspaceFolder}` expanded, relative to the first workspace folder.
 */
export function findBinary(setting: string | undefined, env: LookupEnv): Lookup {
    const wanted = (setting ?? '').trim() || DEFAULT_BINARY;
    const expanded = expand(wanted, env);
    const extensions = env.platform === 'win32' ? ['', '.exe'] : [''];
    const isPath = expanded.includes('/') || (env.platform === 'win32' && expanded.includes('\\'));
    let candidates: string[];
    if (isPath) {
        const absolute = path.isAbsolute(expanded)
            ? expanded
            : path.resolve(env.workspaceFolder ?? process.cwd(), expanded);
        candidates = extensions.map((ext) => absolute + ext);
    } else {
        const separator = env.platform === 'win32' ? ';' : ':';
        const dirs = (env.pathVariable ?? '').split(separator).filter((d) => d !== '');
        candidates = dirs.flatMap((dir) => extensions.map((ext) => path.join(dir, expanded + ext)));
    }
    for (const candidate of candidates) {
        if (env.isExecutable(candidate)) {
            return { found: true, path: candidate };
        }
    }
    const where = isPath ? `${expanded} does not exist or is not executable` : `${expanded} is not on PATH`;
    return { found: false, setting: wanted, message: `mutiny not found (${where}): ${NOT_FOUND_FIX}` };
}

function expand(setting: string, env: LookupEnv): string {
    let result = setting;
    if (result === '~' || result.startsWith('~/')) {
        result = env.home + result.slice(1);
    }
    if (env.workspaceFolder !== undefined) {
        result = result.split('${workspaceFolder}').join(env.workspaceFolder);
    }
    return result;
}

/** The real environment of the extension host. */
export function processEnv(workspaceFolder: string | undefined): LookupEnv {
    return {
        pathVariable: process.env.PATH,
        workspaceFolder,
        home: os.homedir(),
        platform: process.platform,
        isExecutable(file: string): boolean {
            try {
                if (!fs.statSync(file).isFile()) {
                    return false;
                }
                fs.accessSync(file, fs.constants.X_OK);
                return true;
            } catch {
                return false;
            }
        },
    };
}
