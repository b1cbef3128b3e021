// The `mutiny-mutant:` URIs behind the diff editor: one document for the
// original file and one for the mutated file of each mutant. Pure.

export const MUTANT_SCHEME = 'mutiny-mutant';

export type Side = 'original' | 'mutated';

/** What a `mutiny-mutant:` URI names. */
export interface MutantRef {
    name: string;
    side: Side;
}

/** The parts of a `mutiny-mutant:` URI, for `vscode.Uri.from`. */
export interface UriParts {
    scheme: string;
    path: string;
    query: string;
}

/**
 * The URI of one side of a mutant. The path ends with the source file's
 * path, so the editor picks the language (Rust) and the tab shows the file
 * name; the query carries the mutant's name, base64url-encoded so that no
 * character in a name (`:`, `&`, `%`, `#`, spaces) can be mangled by URI
 * encoding on its way through the workbench.
 */
export function mutantUri(ref: MutantRef, filePath: string): UriParts {
    const path = filePath.startsWith('/') ? filePath : `/${filePath}`;
    const query = Buffer.from(JSON.stringify({ name: ref.name, side: ref.side }), 'utf8').toString('base64url');
    return { scheme: MUTANT_SCHEME, path: `/${ref.side}${path}`, query };
}

/** The mutant a URI names, or undefined when it is not one of ours. */
export function parseMutantUri(uri: { scheme: string; query: string }): MutantRef | undefined {
    if (uri.scheme !== MUTANT_SCHEME) {
        return undefined;
    }
    try {
        const value = JSON.parse(Buffer.from(uri.query, 'base64url').toString('utf8'));
        if (typeof value?.name === 'string' && (value.side === 'original' || value.side === 'mutated')) {
            return { name: value.name, side: value.side };
        }
    } catch {
        // Not ours after all.
    }
    return undefined;
}

/**
 * A mutant's name split into where it is and what it does:
 * `src/lib.rs:51:32: replace > with == in matches` gives
 * `src/lib.rs:51:32` and `replace > with == in matches`.
 */
export function splitName(name: string): { location: string; what: string } {
    const match = /^(.*?:\d+:\d+): (.*)$/.exec(name);
    return match ? { location: match[1], what: match[2] } : { location: '', what: name };
}

/**
 * The diff editor's title: `lib.rs:51: replace > with == in matches (original ↔ mutated)`.
 * The tab is narrow, so the location is cut to the file name and line.
 */
export function diffTitle(name: string): string {
    const { location, what } = splitName(name);
    const short = location.split('/').pop()?.replace(/:\d+$/, '') ?? '';
    return short ? `${short}: ${what} (original ↔ mutated)` : `${what} (original ↔ mutated)`;
}
