// The VS Code side of mutiny: starts `mutiny lsp`, adds the palette
// commands, the status bar item and a real diff editor for mutants. The
// diagnostics, hovers, code lenses and quick fixes come from the server
// through vscode-languageclient unchanged.

import * as vscode from 'vscode';
import {
    CodeLensRequest,
    DidChangeConfigurationNotification,
    ExecuteCommandRequest,
    LanguageClient,
    LanguageClientOptions,
    Range as LspRange,
    ServerOptions,
    State,
} from 'vscode-languageclient/node';

import { findBinary, processEnv } from './binary';
import { MUTANT_SCHEME, MutantRef, diffTitle, mutantUri, parseMutantUri, splitName } from './mutantUri';
import { RESTART_KEYS, serverSettings } from './settings';
import { StatusParams, countMissed, pauseToggleCommand, statusView } from './status';

/** The server's commands (`workspace/executeCommand`). */
const SERVER = {
    testFile: 'mutiny.testFile',
    testWorkspace: 'mutiny.testWorkspace',
    cancel: 'mutiny.cancel',
    showMutantDiff: 'mutiny.showMutantDiff',
};

/**
 * The extension's own commands. vscode-languageclient registers each of the
 * server's commands as a VS Code command of the same id, so these need ids
 * of their own.
 */
const CLIENT = {
    testFile: 'mutiny.client.testFile',
    testWorkspace: 'mutiny.client.testWorkspace',
    cancel: 'mutiny.client.cancel',
    restartServer: 'mutiny.client.restartServer',
    showDiff: 'mutiny.client.showDiff',
    showProblems: 'mutiny.client.showProblems',
    openServerPathSetting: 'mutiny.client.openServerPathSetting',
    /** What clicking the status bar item does (its id names no server command). */
    togglePause: 'mutiny.togglePause',
};

/** One result of the server's `mutiny/mutants` request. */
interface MutantDetails {
    name: string;
    uri: string;
    range: LspRange;
    diff: string;
    original: string;
    mutated: string;
}

let mutiny: Mutiny | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
    mutiny = new Mutiny(context);
    await mutiny.start();
}

export async function deactivate(): Promise<void> {
    await mutiny?.stop();
}

class Mutiny implements vscode.TextDocumentContentProvider {
    private client: LanguageClient | undefined;
    private readonly output: vscode.LogOutputChannel;
    private readonly statusItem: vscode.StatusBarItem;
    private status: StatusParams | undefined;
    private serverState: 'starting' | 'running' | 'stopped' = 'starting';
    /** Mutants fetched for the diff editor, by name. */
    private readonly mutants = new Map<string, MutantDetails>();

    constructor(context: vscode.ExtensionContext) {
        this.output = vscode.window.createOutputChannel('mutiny', { log: true });
        this.statusItem = vscode.window.createStatusBarItem('mutiny.status', vscode.StatusBarAlignment.Left, 0);
        this.statusItem.name = 'mutiny';
        const subscriptions = context.subscriptions;
        subscriptions.push(
            this.output,
            this.statusItem,
            vscode.workspace.registerTextDocumentContentProvider(MUTANT_SCHEME, this),
            vscode.languages.onDidChangeDiagnostics(() => this.updateStatus()),
            vscode.workspace.onDidChangeConfiguration((event) => this.configurationChanged(event)),
            vscode.commands.registerCommand(CLIENT.testFile, (uri?: vscode.Uri) => this.testFile(uri)),
            vscode.commands.registerCommand(CLIENT.testWorkspace, () => this.serverCommand(SERVER.testWorkspace)),
            vscode.commands.registerCommand(CLIENT.cancel, () => this.serverCommand(SERVER.cancel)),
            vscode.commands.registerCommand(CLIENT.restartServer, () => this.restart()),
            vscode.commands.registerCommand(CLIENT.showDiff, (...names: unknown[]) => this.showDiffCommand(names)),
            vscode.commands.registerCommand(CLIENT.showProblems, () => this.showProblems()),
            vscode.commands.registerCommand(CLIENT.togglePause, () => this.togglePause()),
            vscode.commands.registerCommand(CLIENT.openServerPathSetting, () => openServerPathSetting()),
        );
        this.updateStatus();
        this.statusItem.show();
    }

    async start(): Promise<void> {
        const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
        const setting = vscode.workspace.getConfiguration('mutiny').get<string>('server.path');
        const lookup = findBinary(setting, processEnv(folder));
        if (!lookup.found) {
            this.setServerState('stopped');
            this.output.error(lookup.message);
            void vscode.window.showErrorMessage(lookup.message, 'Open Settings').then((choice) => {
                if (choice === 'Open Settings') {
                    void vscode.commands.executeCommand(CLIENT.openServerPathSetting);
                }
            });
            return;
        }
        this.output.info(`starting ${lookup.path} lsp`);
        const serverOptions: ServerOptions = {
            command: lookup.path,
            // No `transport`: vscode-languageclient would add `--stdio`,
            // which `mutiny lsp` does not take; stdio is its only transport.
            args: ['lsp'],
            options: folder ? { cwd: folder } : undefined,
        };
        const clientOptions: LanguageClientOptions = {
            documentSelector: [{ scheme: 'file', language: 'rust' }],
            initializationOptions: serverSettings(vscode.workspace.getConfiguration('mutiny')),
            outputChannel: this.output,
            middleware: {
                // The server's own `mutiny.showMutantDiff` returns a unified
                // diff as text; in VS Code the code lens and the code action
                // open a real diff editor instead.
                executeCommand: (command, args, next) => {
                    if (command === SERVER.showMutantDiff) {
                        return this.showDiffs(mutantNames(args));
                    }
                    return next(command, args);
                },
            },
        };
        const client = new LanguageClient('mutiny', 'mutiny', serverOptions, clientOptions);
        this.client = client;
        client.onDidChangeState((event) => {
            if (this.client !== client) {
                return;
            }
            this.setServerState(
                event.newState === State.Running ? 'running' : event.newState === State.Starting ? 'starting' : 'stopped',
            );
        });
        client.onNotification('mutiny/status', (params: StatusParams) => {
            this.status = params;
            this.updateStatus();
        });
        this.setServerState('starting');
        try {
            await client.start();
        } catch (err) {
            this.setServerState('stopped');
            const message = `mutiny: the server did not start: ${err instanceof Error ? err.message : String(err)}`;
            this.output.error(message);
            void vscode.window.showErrorMessage(message, 'Show Log').then((choice) => {
                if (choice) {
                    this.output.show();
                }
            });
        }
    }

    async stop(): Promise<void> {
        const client = this.client;
        this.client = undefined;
        this.status = undefined;
        if (client?.needsStop()) {
            try {
                await client.stop();
            } catch (err) {
                this.output.warn(`stopping the server: ${String(err)}`);
            }
        }
        this.setServerState('stopped');
    }

    private async restart(): Promise<void> {
        await this.stop();
        await this.start();
    }

    private configurationChanged(event: vscode.ConfigurationChangeEvent): void {
        if (RESTART_KEYS.some((key) => event.affectsConfiguration(key))) {
            void this.restart();
            return;
        }
        if (event.affectsConfiguration('mutiny') && this.client?.isRunning()) {
            const settings = serverSettings(vscode.workspace.getConfiguration('mutiny'));
            void this.client.sendNotification(DidChangeConfigurationNotification.type, {
                settings: { mutiny: settings },
            });
        }
    }

    private setServerState(state: 'starting' | 'running' | 'stopped'): void {
        this.serverState = state;
        this.updateStatus();
    }

    private updateStatus(): void {
        const all = vscode.languages.getDiagnostics().flatMap(([, diagnostics]) => diagnostics);
        const view = statusView(this.status, countMissed(all), this.serverState);
        this.statusItem.text = view.text;
        this.statusItem.tooltip = view.tooltip;
        this.statusItem.accessibilityInformation = { label: view.text.replace(/\$\([^)]*\)\s*/g, '') };
        this.statusItem.command = this.serverState === 'stopped'
            ? { title: 'Open Settings', command: CLIENT.openServerPathSetting }
            : CLIENT.togglePause;
    }

    /**
     * Pauses the server (its findings hidden, saves not tested) or resumes
     * it. The status bar follows the server's `mutiny/status`, which says
     * `paused` until it resumes.
     */
    private async togglePause(): Promise<void> {
        await this.serverCommand(pauseToggleCommand(this.status));
    }

    /** The running client, or a message saying why there is none. */
    private runningClient(): LanguageClient | undefined {
        if (this.client?.isRunning()) {
            return this.client;
        }
        void vscode.window.showWarningMessage('mutiny: the server is not running. Run "Mutiny: Restart Server".');
        return undefined;
    }

    private async serverCommand(command: string, ...args: unknown[]): Promise<unknown> {
        const client = this.runningClient();
        if (!client) {
            return undefined;
        }
        return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
    }

    private async testFile(uri: vscode.Uri | undefined): Promise<void> {
        const document = uri
            ? await vscode.workspace.openTextDocument(uri)
            : vscode.window.activeTextEditor?.document;
        if (!document || document.uri.scheme !== 'file' || document.languageId !== 'rust') {
            void vscode.window.showWarningMessage('mutiny: open a Rust file of the workspace to test its mutants.');
            return;
        }
        const client = this.runningClient();
        if (!client) {
            return;
        }
        // The server tests the file on disk: save it first. Saving already
        // starts the test when `mutiny.onSave` is on.
        if (document.isDirty && (await document.save()) && serverSettings(vscode.workspace.getConfiguration('mutiny')).onSave) {
            return;
        }
        await this.serverCommand(SERVER.testFile, client.code2ProtocolConverter.asUri(document.uri));
    }

    /** Palette command: the mutants of the active file, nearest the cursor first. */
    private async showDiffCommand(names: unknown[]): Promise<void> {
        const given = mutantNames(names);
        if (given.length > 0) {
            return this.showDiffs(given);
        }
        const editor = vscode.window.activeTextEditor;
        const client = this.runningClient();
        if (!editor || !client) {
            return;
        }
        const lenses = await client.sendRequest(CodeLensRequest.type, {
            textDocument: { uri: client.code2ProtocolConverter.asUri(editor.document.uri) },
        });
        const inFile = mutantNames((lenses ?? []).flatMap((lens) => lens.command?.arguments ?? []));
        if (inFile.length === 0) {
            void vscode.window.showInformationMessage('mutiny: no missed mutants in this file.');
            return;
        }
        return this.showDiffs(inFile, editor.selection.active.line);
    }

    /** Opens the diff editor for one of the named mutants (asking which, when several). */
    private async showDiffs(names: string[], nearLine?: number): Promise<void> {
        const client = this.runningClient();
        if (!client) {
            return;
        }
        const found = await client.sendRequest<MutantDetails[]>('mutiny/mutants', { names });
        if (!found || found.length === 0) {
            void vscode.window.showWarningMessage(
                'mutiny: that mutant is no longer among the findings; save the file to test it again.',
            );
            return;
        }
        for (const mutant of found) {
            this.mutants.set(mutant.name, mutant);
        }
        if (nearLine !== undefined) {
            found.sort((a, b) => Math.abs(a.range.start.line - nearLine) - Math.abs(b.range.start.line - nearLine));
        }
        let chosen = found[0];
        if (found.length > 1) {
            const items = found.map((mutant) => {
                const { location, what } = splitName(mutant.name);
                return { label: what, description: location, mutant };
            });
            const picked = await vscode.window.showQuickPick(items, {
                title: 'mutiny: show the diff of which missed mutant?',
                matchOnDescription: true,
            });
            if (!picked) {
                return;
            }
            chosen = picked.mutant;
        }
        await this.openDiff(chosen);
    }

    private async openDiff(mutant: MutantDetails): Promise<void> {
        const file = vscode.Uri.parse(mutant.uri);
        const relative = vscode.workspace.asRelativePath(file, false);
        const side = (side: MutantRef['side']) => vscode.Uri.from(mutantUri({ name: mutant.name, side }, relative));
        const start = mutant.range.start;
        await vscode.commands.executeCommand(
            'vscode.diff',
            side('original'),
            side('mutated'),
            diffTitle(mutant.name),
            { preview: true, selection: new vscode.Range(start.line, start.character, start.line, start.character) },
        );
    }

    /** The text of one side of a mutant, for the diff editor. */
    async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
        const ref = parseMutantUri(uri);
        if (!ref) {
            return '';
        }
        let mutant = this.mutants.get(ref.name);
        if (!mutant && this.client?.isRunning()) {
            // A diff editor restored after a reload: ask the server again.
            const found = await this.client.sendRequest<MutantDetails[]>('mutiny/mutants', { names: [ref.name] });
            mutant = found?.[0];
            if (mutant) {
                this.mutants.set(mutant.name, mutant);
            }
        }
        if (!mutant) {
            return `// mutiny: ${ref.name} is no longer among the missed mutants.\n`;
        }
        return ref.side === 'original' ? mutant.original : mutant.mutated;
    }

    /**
     * The Problems view, with keyboard focus in its filter box. VS Code has
     * no API to set the filter's text, so the mutiny entries are found by
     * typing `mutiny` there (their source).
     */
    private async showProblems(): Promise<void> {
        await vscode.commands.executeCommand('workbench.action.problems.focus');
        await vscode.commands.executeCommand('problems.action.focusFilter');
    }
}

/** The settings editor at `mutiny.server.path`, in the scope where it is set. */
async function openServerPathSetting(): Promise<void> {
    const inspected = vscode.workspace.getConfiguration('mutiny').inspect('server.path');
    const command = inspected?.workspaceFolderValue !== undefined || inspected?.workspaceValue !== undefined
        ? 'workbench.action.openWorkspaceSettings'
        : 'workbench.action.openSettings';
    await vscode.commands.executeCommand(command, { query: 'mutiny.server.path' });
}

/** The mutant names among command arguments (flattening arrays). */
function mutantNames(args: unknown[]): string[] {
    return args.flat(2).filter((a): a is string => typeof a === 'string');
}
