// What the status bar item says. Pure, so it is unit-tested without VS Code.

/** The params of mutiny's `mutiny/status` notification. */
export interface StatusParams {
    /** `paused`: after `mutiny.pause`, until `mutiny.resume`. */
    state: 'running' | 'idle' | 'paused';
    done: number;
    total: number;
    /** What the job tests: a file's path, or `3 files`. */
    title: string;
}

/** What the status bar shows and says on hover. */
export interface StatusView {
    text: string;
    tooltip: string;
}

/**
 * The status bar item for the server's last status (undefined before the
 * first job) and the number of missed mutants in the workspace.
 */
export function statusView(
    status: StatusParams | undefined,
    missed: number,
    serverState: 'starting' | 'running' | 'stopped' = 'running',
): StatusView {
    if (serverState === 'stopped') {
        return {
            text: '$(error) mutiny',
            tooltip: 'mutiny: the server is not running — click for the log, or run "Mutiny: Restart Server"',
        };
    }
    if (status?.state === 'paused') {
        return {
            text: '$(debug-pause) mutiny: paused',
            tooltip: 'mutiny: paused — missed mutants are hidden and saves are not tested. '
                + 'Click to resume: they show again, and the files saved meanwhile are tested.',
        };
    }
    const missedText = missedPhrase(missed);
    if (status?.state === 'running') {
        const progress = status.total > 0 ? ` ${status.done}/${status.total}` : '';
        const what = status.title ? ` · ${status.title}` : '';
        return {
            text: `$(sync~spin) mutiny${progress}`,
            tooltip: `mutiny: testing mutants${what}${progress ? ` (${status.done} of ${status.total} done)` : ''}` +
                `${missed > 0 ? ` — ${missedText} so far` : ''}. ${PAUSE_HINT}`,
        };
    }
    if (missed > 0) {
        return {
            text: `$(warning) ${missed} missed`,
            tooltip: `mutiny: ${missedText} — the tests still pass with these changes. ${PAUSE_HINT}`,
        };
    }
    return {
        text: '$(beaker) mutiny',
        tooltip: serverState === 'starting'
            ? 'mutiny: starting the server'
            : `mutiny: no missed mutants. Save a Rust file to test its mutants. ${PAUSE_HINT}`,
    };
}

/** What clicking the item does while the server runs. */
const PAUSE_HINT = 'Click to pause: hide the results and test nothing until you click again.';

/** The server command that toggles pausing, from the server's last status. */
export function pauseToggleCommand(status: StatusParams | undefined): 'mutiny.pause' | 'mutiny.resume' {
    return status?.state === 'paused' ? 'mutiny.resume' : 'mutiny.pause';
}

export function missedPhrase(missed: number): string {
    return `${missed} missed mutant${missed === 1 ? '' : 's'}`;
}

/** The minimal shape of a diagnostic that `countMissed` needs. */
export interface DiagnosticLike {
    source?: string;
    /** VS Code's DiagnosticSeverity: 0 error, 1 warning, 2 information, 3 hint. */
    severity: number;
}

/** Missed mutants are mutiny's warnings (timeouts are informations). */
export function countMissed(diagnostics: Iterable<DiagnosticLike>): number {
    let count = 0;
    for (const diagnostic of diagnostics) {
        if (diagnostic.source === 'mutiny' && diagnostic.severity === 1) {
            count++;
        }
    }
    return count;
}
