// End-to-end test of the mutiny VS Code extension: real VS Code (code-server),
// the real .vsix, the real `mutiny lsp`, driven through Debian's Chromium.
//
// Environment (run.sh sets them):
//   CODE_SERVER  code-server's entry script (…/node_modules/code-server/out/node/entry.js)
//   VSIX         the packaged extension
//   MUTINY_BIN   the mutiny binary (default <repo>/target/debug/mutiny)
//   CHROMIUM     the browser (default /usr/bin/chromium)
//
// The fixture crate is copied to a temporary directory: the test edits and
// saves files, and the server's scratch trees go there too (TMPDIR), so
// nothing is left behind in the repository or in /tmp.

import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const codeServer = requiredEnv('CODE_SERVER');
const vsix = requiredEnv('VSIX');
const mutinyBin = process.env.MUTINY_BIN || path.join(repo, 'target/debug/mutiny');
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
const screenshots = path.join(repo, 'target/editor-screenshots/vscode');

// The first save builds the scratch tree and runs the baseline: slow with a
// debug binary on a busy machine.
const FIRST_RESULTS_MS = 300_000;
const UI_MS = 30_000;

/** What the tests share: one code-server, one browser page. */
const session = {
    root: '',
    workspace: '',
    codeServer: /** @type {import('node:child_process').ChildProcess | undefined} */ (undefined),
    codeServerLog: '',
    browser: /** @type {import('playwright-core').Browser | undefined} */ (undefined),
    page: /** @type {import('playwright-core').Page} */ (/** @type {any} */ (undefined)),
};

function requiredEnv(name) {
    const value = process.env[name];
    if (!value) {
        throw new Error(`${name} is not set: run tests/vscode/run.sh`);
    }
    return value;
}

before(async () => {
    assert.ok(fs.existsSync(mutinyBin), `${mutinyBin} exists (cargo build, or set MUTINY_BIN)`);
    session.root = fs.mkdtempSync(path.join(os.tmpdir(), 'mutiny-vscode-e2e-'));
    const root = session.root;
    session.workspace = path.join(root, 'example');
    fs.cpSync(path.join(repo, 'tests/fixtures/example'), session.workspace, {
        recursive: true,
        filter: (source) => !source.split(path.sep).includes('target'),
    });
    for (const dir of ['extensions', 'user-data', 'tmp', 'config']) {
        fs.mkdirSync(path.join(root, dir), { recursive: true });
    }
    writeJson(path.join(root, 'user-data/User/settings.json'), {
        'mutiny.server.path': mutinyBin,
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'workbench.enableExperiments': false,
        'workbench.welcomePage.walkthroughs.openOnInstall': false,
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'extensions.ignoreRecommendations': true,
        'update.mode': 'none',
        'telemetry.telemetryLevel': 'off',
        'security.workspace.trust.enabled': false,
        'editor.codeLens': true,
        'editor.minimap.enabled': false,
        'files.autoSave': 'off',
        'window.restoreWindows': 'none',
        'chat.commandCenter.enabled': false,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
    });

    const install = execFileSync(
        process.execPath,
        [codeServer, '--install-extension', vsix, '--extensions-dir', path.join(root, 'extensions'),
            '--user-data-dir', path.join(root, 'user-data')],
        { encoding: 'utf8', env: codeServerEnv() },
    );
    assert.match(install, /was successfully installed/, install);

    const port = await freePort();
    fs.writeFileSync(path.join(root, 'config/config.yaml'), `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
    session.codeServer = spawn(
        process.execPath,
        [codeServer, '--config', path.join(root, 'config/config.yaml'), '--auth', 'none',
            '--bind-addr', `127.0.0.1:${port}`, '--disable-workspace-trust', '--disable-telemetry',
            '--disable-update-check', '--disable-getting-started-override',
            '--extensions-dir', path.join(root, 'extensions'), '--user-data-dir', path.join(root, 'user-data'),
            session.workspace],
        { env: codeServerEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const logStream = fs.createWriteStream(path.join(root, 'code-server.log'));
    for (const stream of [session.codeServer.stdout, session.codeServer.stderr]) {
        stream.on('data', (chunk) => {
            session.codeServerLog += chunk;
            logStream.write(chunk);
        });
    }
    await waitFor(() => session.codeServerLog.includes('HTTP server listening'), 60_000, 'code-server listens');

    session.browser = await chromium.launch({
        executablePath: chromiumPath,
        headless: true,
        args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
            '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
    });
    const context = await session.browser.newContext({ viewport: { width: 1440, height: 900 } });
    session.page = await context.newPage();
    session.page.setDefaultTimeout(UI_MS);
    await session.page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(session.workspace)}`);
    await session.page.locator('.monaco-workbench').waitFor();
    await session.page.locator('.explorer-folders-view, .explorer-viewlet').first().waitFor().catch(() => {});
    fs.rmSync(screenshots, { recursive: true, force: true });
    fs.mkdirSync(screenshots, { recursive: true });
});

after(async () => {
    const page = session.page;
    if (page && !page.isClosed()) {
        await page.screenshot({ path: path.join(screenshots, 'last.png') }).catch(() => {});
    }
    await session.browser?.close().catch(() => {});
    const server = session.codeServer;
    if (server && server.exitCode === null && server.signalCode === null) {
        server.kill('SIGTERM');
        await new Promise((resolve) => {
            const timer = setTimeout(resolve, 10_000);
            server.once('exit', () => {
                clearTimeout(timer);
                resolve(undefined);
            });
        });
    }
    // The last test fails when a server does not exit by itself; whatever
    // is left then (or after an earlier failure) is killed here, so that
    // nothing leaks, and said.
    const left = mutinyProcesses();
    for (const pid of left) {
        try {
            process.kill(pid, 'SIGKILL');
        } catch {
            // Gone already.
        }
    }
    if (left.length > 0) {
        console.error(`killed mutiny servers that were still running: ${left.join(', ')}`);
    }
    if (session.root && !process.env.KEEP_E2E_DIR) {
        fs.rmSync(session.root, { recursive: true, force: true });
    }
});

test('the extension activates on a Rust file and shows its idle status', async () => {
    const page = session.page;
    await openFile('src/lib.rs');
    await page.locator('.monaco-editor .view-lines').first().waitFor();
    const status = statusItem();
    await status.waitFor({ timeout: 60_000 });
    await waitFor(async () => (await statusText()) === 'mutiny' && (await statusIcon()) === 'beaker', 60_000,
        'the status bar reads "$(beaker) mutiny" (server running, idle)');
    assert.equal(await page.locator('.monaco-editor .squiggly-warning').count(), 0, 'no warnings before the first save');
    await page.screenshot({ path: path.join(screenshots, '01-opened.png') });
});

test('saving src/lib.rs shows the missed mutants as warnings and code lenses, with progress in the status bar', async () => {
    const page = session.page;
    await focusEditor();
    // The editor takes the focus back from the palette a moment later: a
    // key pressed before then is lost (and the line typed below would land
    // at the top, moving every line the later tests go to).
    const lastLine = fs.readFileSync(path.join(session.workspace, 'src/lib.rs'), 'utf8').split('\n').length;
    await waitFor(async () => {
        await page.keyboard.press('Control+End');
        return (await page.locator('.statusbar-item[id="status.editor.selection"]').innerText())
            .includes(`Ln ${lastLine},`);
    }, UI_MS, `the cursor is on the last line, ${lastLine}`);
    await page.keyboard.type('// touched by the VS Code end-to-end test');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Control+S');
    await waitFor(() => fs.readFileSync(path.join(session.workspace, 'src/lib.rs'), 'utf8').includes('// touched by'),
        UI_MS, 'the file is saved');

    const progress = [];
    await waitFor(async () => {
        const text = await statusText();
        if (/^mutiny \d+\/\d+$/.test(text) && !progress.includes(text)) {
            progress.push(text);
            if (progress.length === 4) {
                await page.screenshot({ path: path.join(screenshots, '02-running.png') });
            }
        }
        return /missed/.test(text);
    }, FIRST_RESULTS_MS, 'the status bar says how many mutants were missed', 250);
    assert.ok(progress.length > 0, 'the status bar showed "mutiny done/total" while the job ran');
    // Lines 29-58 hold is_stable, matches and compatible.
    await goToLine(44, 1);
    await waitFor(async () => (await page.locator('.monaco-editor .squiggly-warning').count()) > 0, UI_MS,
        'missed-mutant warnings are drawn in the editor');
    const lens = page.locator('.codelens-decoration', { hasText: 'missed mutant' });
    await lens.first().waitFor();
    const lensTexts = await lens.allInnerTexts();
    assert.ok(lensTexts.some((t) => /5 missed mutants · show diff/.test(t)), `a lens above is_stable: ${lensTexts}`);
    assert.ok(lensTexts.some((t) => /3 missed mutants · show diff/.test(t)), `a lens above compatible: ${lensTexts}`);
    console.log(`status while running: ${progress.join(', ')}; lenses: ${lensTexts.join(' | ')}`);
    await page.screenshot({ path: path.join(screenshots, '03-missed-mutants.png') });
});

test('the status bar counts the missed mutants, and Mutiny: Show Missed Mutants opens the Problems view', async () => {
    const page = session.page;
    // tests/fixtures/EXPECTED.md: the example's tests miss 11 mutants.
    await waitFor(async () => (await statusText()) === '11 missed', UI_MS, 'the status bar reads "11 missed"');
    await runCommand('Mutiny: Show Missed Mutants');
    const problems = page.locator('.markers-panel');
    await problems.waitFor();
    const rows = problems.locator('.monaco-list-row', { hasText: 'missed mutant' });
    await rows.first().waitFor();
    // The command focuses the filter once the view is shown: the rows can
    // be drawn a moment before the focus arrives.
    const focusedInFilter = () => page.evaluate(
        () => !!document.activeElement?.closest('.viewpane-filter, .markers-panel-action-filter'),
    );
    await waitFor(focusedInFilter, UI_MS, 'the Problems filter has the keyboard focus');
    // Typed into the filter, a text no problem has hides them all: the
    // filter applies (so the check below does not look before it did).
    await page.keyboard.type('no-such-problem');
    await waitFor(async () => (await rows.count()) === 0, UI_MS, 'the filter "no-such-problem" hides every problem');
    // One input event replaces it: the list shows either that filter's
    // result (nothing) or "mutiny"'s.
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('mutiny');
    await waitFor(async () => (await rows.count()) > 0, UI_MS, 'the mutiny problems are listed under the filter "mutiny"');
    await page.screenshot({ path: path.join(screenshots, '04-problems.png') });
    await runCommand('View: Hide Panel');
});

test('clicking the status bar pauses: warnings and code lenses go until Mutiny: Pause/Resume Results brings them back', async () => {
    const page = session.page;
    await openFile('src/lib.rs');
    // Lines 29-58 hold is_stable, matches and compatible.
    await goToLine(44, 1);
    const warnings = page.locator('.monaco-editor .squiggly-warning');
    const lenses = page.locator('.codelens-decoration', { hasText: 'missed mutant' });
    await waitFor(async () => (await warnings.count()) > 0 && (await lenses.count()) > 0, UI_MS,
        'the warnings and code lenses are drawn');
    const lensCount = await lenses.count();

    // The click runs mutiny.togglePause, which pauses the server.
    await statusItem().click();
    await waitFor(async () => (await statusText()) === 'mutiny: paused' && (await statusIcon()) === 'debug-pause', UI_MS,
        'the status bar reads "$(debug-pause) mutiny: paused"');
    await waitFor(async () => (await warnings.count()) === 0, UI_MS, 'the warnings are gone');
    await waitFor(async () => (await lenses.count()) === 0, UI_MS, 'the code lenses are gone');
    await page.screenshot({ path: path.join(screenshots, '04b-paused.png') });

    // The same command from the palette resumes it.
    await runCommand('Mutiny: Pause/Resume Results');
    await waitFor(async () => (await statusText()) === '11 missed' && (await statusIcon()) === 'warning', UI_MS,
        'the status bar reads "11 missed" again');
    await waitFor(async () => (await warnings.count()) > 0, UI_MS, 'the warnings are back');
    await waitFor(async () => (await lenses.count()) === lensCount, UI_MS, `the ${lensCount} code lenses are back`);
});

test('the code lens opens a diff editor of the original and mutated text', async () => {
    const page = session.page;
    await openFile('src/lib.rs');
    await goToLine(56, 1);
    // Two lenses read "3 missed mutants": matches (line 48) and compatible
    // (line 56), the lower one.
    const lenses = page.locator('.codelens-decoration a', { hasText: '3 missed mutants' });
    await waitFor(async () => (await lenses.count()) === 2, UI_MS, 'both lenses are drawn');
    const boxes = await Promise.all([0, 1].map(async (i) => (await lenses.nth(i).boundingBox())?.y ?? 0));
    await lenses.nth(boxes[0] > boxes[1] ? 0 : 1).click();
    const pick = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'replace && with || in compatible' });
    await pick.first().waitFor();
    await page.screenshot({ path: path.join(screenshots, '05-pick-mutant.png') });
    await pick.first().click();

    const diff = page.locator('.monaco-diff-editor');
    await diff.first().waitFor();
    const tab = page.locator('.tab.active');
    await waitFor(async () => /original ↔ mutated/.test(await tab.innerText()), UI_MS, 'the diff tab is titled');
    const side = (which) => diff.first().locator(`.editor.${which} .view-lines`);
    await waitFor(async () => {
        const original = normalize(await side('original').innerText());
        const modified = normalize(await side('modified').innerText());
        return original.includes('version.major == 0 && version.minor == required.minor')
            && !original.includes('version.major == 0 ||')
            && modified.includes('version.major == 0 ||')
            && !modified.includes('version.major == 0 &&');
    }, UI_MS, 'the original side has && and the mutated side has ||');
    assert.ok((await diff.first().locator('.char-insert, .line-insert').count()) > 0, 'the change is highlighted');
    await page.screenshot({ path: path.join(screenshots, '06-diff.png') });
    await runCommand('View: Close Editor');
});

test('the skip quick fix writes #[mutants::skip] above the method, indented, and adds the mutants dependency', async () => {
    const page = session.page;
    await openFile('src/lib.rs');
    // Line 30: `self.major > 0` in `Version::is_stable`, inside `impl Version`.
    await goToLine(30, 20);
    await page.keyboard.press('Control+.');
    const fix = page.locator('.action-widget .monaco-list-row', { hasText: /Skip mutants in fn .*is_stable/ });
    await fix.first().waitFor();
    await page.screenshot({ path: path.join(screenshots, '07-quick-fix.png') });
    // The menu takes keys, not clicks, while it is open.
    const focusedRow = page.locator('.action-widget .monaco-list-row.focused');
    for (let i = 0; i < 20; i++) {
        const focused = await focusedRow.getAttribute('aria-label');
        if (/Skip mutants in fn .*is_stable/.test(focused ?? '')) {
            break;
        }
        await page.keyboard.press('ArrowDown');
    }
    assert.match(await focusedRow.getAttribute('aria-label') ?? '',
        /Skip mutants in fn Version::is_stable/);
    await page.keyboard.press('Enter');
    // VS Code saves the files a code action edits (files.refactoring.autoSave);
    // Save All makes the test independent of that setting.
    await runCommand('File: Save All Files');

    const libRs = path.join(session.workspace, 'src/lib.rs');
    const cargoToml = path.join(session.workspace, 'Cargo.toml');
    await waitFor(() => fs.readFileSync(libRs, 'utf8').includes('#[mutants::skip]'), UI_MS, 'lib.rs is saved with the skip');
    const text = fs.readFileSync(libRs, 'utf8');
    assert.match(text, /\n {4}#\[mutants::skip\]\n {4}pub fn is_stable\(&self\) -> bool \{/,
        'the attribute is on its own line right above the method, with its indentation');
    assert.equal(text.split('#[mutants::skip]').length - 1, 1, 'exactly one attribute was added');
    assert.doesNotMatch(text, /changed by mutiny/, 'no mutant ever reached the workspace');
    await waitFor(() => fs.readFileSync(cargoToml, 'utf8').includes('mutants = "0.0.4"'), UI_MS, 'Cargo.toml is saved');
    assert.match(fs.readFileSync(cargoToml, 'utf8'), /\[dependencies\]\s*\nmutants = "0\.0\.4"/);
});

test('after the skip is saved, the skipped method has no missed mutants left', async () => {
    // 11 missed, less the 5 in is_stable.
    await waitFor(async () => (await statusText()) === '6 missed', FIRST_RESULTS_MS,
        'the status bar reads "6 missed" after the re-test', 500);
    // VS Code asks for the lenses again a moment after the server says
    // they changed: the status bar can be drawn first.
    const lenses = () => session.page.locator('.codelens-decoration', { hasText: 'missed mutant' }).allInnerTexts();
    await waitFor(async () => !(await lenses()).some((t) => /5 missed mutants/.test(t)), UI_MS,
        'no lens for is_stable', 500);
    assert.ok(!(await lenses()).some((t) => /5 missed mutants/.test(t)), `no lens for is_stable: ${await lenses()}`);
    await session.page.screenshot({ path: path.join(screenshots, '08-after-skip.png') });
});

test('Mutiny: Show Mutant Diff from the palette opens the diff of a mutant near the cursor', async () => {
    const page = session.page;
    await openFile('src/lib.rs');
    // compatible is now at line 59: the attribute added a line above it.
    await goToLine(59, 28);
    await runCommand('Mutiny: Show Mutant Diff');
    const rows = page.locator('.quick-input-widget .monaco-list-row');
    await rows.first().waitFor();
    assert.match(await rows.first().innerText(), /in compatible/, 'the mutants at the cursor come first');
    await page.keyboard.press('Enter');
    await waitFor(async () => /^lib\.rs:59: .* in compatible \(original ↔ mutated\)/.test(await page.locator('.tab.active').innerText()),
        UI_MS, 'a diff of a compatible mutant opens');
    await page.locator('.monaco-diff-editor').first().waitFor();
    await runCommand('View: Close Editor');
});

test('Mutiny: Test Mutants in This File re-tests from the palette, with progress in the status bar', async () => {
    await openFile('src/lib.rs');
    await runCommand('Mutiny: Test Mutants in This File');
    await waitFor(async () => /^mutiny \d+\/\d+$/.test(await statusText()), 120_000, 'the status bar shows the job running', 100);
    await waitFor(async () => (await statusText()) === '6 missed', FIRST_RESULTS_MS, 'the job ends with 6 missed', 250);
});

test('Mutiny: Restart Server starts a new server, which shows the saved results at once', async () => {
    const before = mutinyProcesses();
    assert.equal(before.length, 1, 'one server runs');
    await runCommand('Mutiny: Restart Server');
    await waitFor(() => {
        const now = mutinyProcesses();
        return now.length === 1 && now[0] !== before[0];
    }, 60_000, 'a new server process replaces the old one');
    await waitFor(async () => (await statusText()) === '6 missed', 60_000, 'the new server shows 6 missed', 100);
});

test('Mutiny: Cancel stops a running job, and the server keeps running and answering', async () => {
    const page = session.page;
    const servers = mutinyProcesses();
    assert.equal(servers.length, 1, 'one server runs');
    await runCommand('Mutiny: Test Mutants in Workspace');
    let seen = '';
    await waitFor(async () => {
        seen = await statusText();
        return /^mutiny \d+\/\d+$/.test(seen);
    }, 120_000, 'the workspace job runs', 100);
    const count = (text) => Number(/^mutiny (\d+)\/\d+$/.exec(text)?.[1] ?? -1);
    const total = Number(/\/(\d+)$/.exec(seen)[1]);
    assert.ok(count(seen) < total, `the job has mutants left (${seen})`);
    const cancelled = Date.now();
    await runCommand('Mutiny: Cancel');
    // The palette has run the command: the request is on its way.
    const atCancel = await statusText();
    // The server's idle `mutiny/status` with the findings kept: "6 missed"
    // with the warning icon. A server that crashed shows the error icon
    // instead, and one restarted in its place has another pid (below).
    // While waiting, the counts the status bar shows (about one a second
    // while mutants are tested): a job the cancel did not stop goes on
    // counting.
    let highest = Math.max(count(seen), count(atCancel));
    const afterCancel = [];
    await waitFor(async () => {
        const text = await statusText();
        if (count(text) >= 0) {
            afterCancel.push(text);
            highest = Math.max(highest, count(text));
        }
        return text === '6 missed' && (await statusIcon()) === 'warning';
    }, 10_000, 'the status bar shows the server idle again, with its 6 missed mutants, soon after the cancel', 50);
    // A mutant the cancel reaches while it is tested reports nothing; one
    // that finished as the request went out may still be counted.
    assert.ok(highest <= Math.max(count(seen), count(atCancel)) + 2 && highest < total,
        `the job stopped: it went on counting at most the mutants finishing as the cancel went out (at the cancel: ${atCancel}; `
        + `after it: ${afterCancel.join(', ') || 'none'})`);
    console.log(`cancelled at ${atCancel} (job seen running at ${seen}), idle after ${Date.now() - cancelled} ms`);
    assert.deepEqual(mutinyProcesses(), servers, 'the same server process still runs');

    // The same server still answers: the palette's Show Mutant Diff asks it
    // for the mutants at the cursor (mutiny/mutants).
    await openFile('src/lib.rs');
    await goToLine(59, 28);
    await runCommand('Mutiny: Show Mutant Diff');
    const rows = page.locator('.quick-input-widget .monaco-list-row');
    await rows.first().waitFor();
    assert.match(await rows.first().innerText(), /in compatible/, 'the server lists the mutants at the cursor');
    await page.keyboard.press('Escape');
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
    assert.deepEqual(mutinyProcesses(), servers, 'and it is still the same server process');
    assert.equal(await statusIcon(), 'warning', 'the status bar still shows the server running');
});

test('a changed setting reaches the running server: with mutiny.onOpen on, opening the file tests it', async () => {
    writeJson(path.join(session.workspace, '.vscode/settings.json'), { 'mutiny.onOpen': true });
    // didChangeConfiguration is sent when VS Code notices the file changed:
    // reopen the file until a test starts.
    await waitFor(async () => {
        await runCommand('View: Close All Editors');
        await openFile('src/lib.rs');
        return waitFor(async () => /^mutiny \d+\/\d+$/.test(await statusText()), 5_000, 'a test starts', 100)
            .then(() => true, () => false);
    }, 60_000, 'opening src/lib.rs starts a test', 0);
    await waitFor(async () => (await statusText()) === '6 missed', FIRST_RESULTS_MS, 'the job ends with 6 missed', 250);
});

test('a server path that does not exist gives an error naming the fix, with a button to the setting', async () => {
    const page = session.page;
    await page.keyboard.press('Escape');
    writeJson(path.join(session.workspace, '.vscode/settings.json'), {
        'mutiny.onOpen': true,
        'mutiny.server.path': '/nonexistent/mutiny',
    });
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'mutiny not found' });
    await toast.first().waitFor({ timeout: 60_000 });
    const message = await toast.first().innerText();
    assert.match(message, /cargo install --path server/);
    assert.match(message, /mutiny\.server\.path/);
    await waitFor(async () => (await statusText()) === 'mutiny' && (await statusIcon()) === 'error', UI_MS,
        'the status bar shows the server stopped');
    await page.screenshot({ path: path.join(screenshots, '09-not-found.png') });
    await toast.first().locator('.monaco-button', { hasText: 'Open Settings' }).click();
    const settingsEditor = page.locator('.settings-editor');
    await settingsEditor.waitFor();
    await settingsEditor.locator('.setting-item-contents', { hasText: 'Server: Path' }).first().waitFor();
    // The bad path is the workspace's, so the workspace settings are opened.
    await waitFor(async () => (await settingsEditor.locator('.settings-tabs-widget .action-label.checked').innerText())
        .includes('Workspace'), UI_MS, 'the Workspace settings tab is open');
    await page.screenshot({ path: path.join(screenshots, '10-setting.png') });
});

test('closing VS Code stops every server: each exits by itself and deletes its scratch trees', async () => {
    // A server to stop: the workspace's bad server path goes, the user's
    // good one applies again.
    writeJson(path.join(session.workspace, '.vscode/settings.json'), {});
    await waitFor(async () => (await statusText()) === '6 missed' && (await statusIcon()) === 'warning', 60_000,
        'a server runs again, with the saved results');
    // The server the bad path replaced may still be on its way out.
    await waitFor(() => mutinyProcesses().length === 1, 20_000, 'one server runs');
    assert.equal(mutinyProcesses().length, 1, 'one server runs');
    await session.browser?.close();
    session.browser = undefined;
    const server = session.codeServer;
    assert.ok(server, 'code-server runs');
    if (server.exitCode === null) {
        // code-server stops its extension host; mutiny then sees its stdin
        // close, cancels its jobs and deletes its scratch trees.
        const exited = new Promise((resolve) => server.once('exit', resolve));
        server.kill('SIGTERM');
        await waitFor(async () => server.exitCode !== null || server.signalCode !== null, 30_000,
            'code-server exits after SIGTERM');
        await exited;
    }
    // A server that does not exit by itself is a failure; after() kills it.
    await waitFor(() => mutinyProcesses().length === 0, 20_000, 'every mutiny server exits by itself');
    const tmp = path.join(session.root, 'tmp');
    const left = fs.readdirSync(tmp).filter((name) => name.startsWith('mutiny-'));
    assert.deepEqual(left, [], `the servers deleted their scratch trees and logs in ${tmp}`);
});

// --- helpers -------------------------------------------------------------

function codeServerEnv() {
    return {
        ...process.env,
        // The server's scratch trees and logs go under the test's own directory.
        TMPDIR: path.join(session.root, 'tmp'),
        XDG_CONFIG_HOME: path.join(session.root, 'config'),
        XDG_DATA_HOME: path.join(session.root, 'data'),
        HOME: process.env.HOME ?? session.root,
    };
}

function writeJson(file, value) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(value, null, 2));
}

function freePort() {
    return new Promise((resolve, reject) => {
        const server = net.createServer();
        server.listen(0, '127.0.0.1', () => {
            const { port } = /** @type {net.AddressInfo} */ (server.address());
            server.close(() => resolve(port));
        });
        server.on('error', reject);
    });
}

/** Polls `condition` until it is true; fails with `what` after `timeoutMs`. */
async function waitFor(condition, timeoutMs, what, intervalMs = 200) {
    const deadline = Date.now() + timeoutMs;
    let lastError;
    for (;;) {
        try {
            if (await condition()) {
                return;
            }
        } catch (err) {
            lastError = err;
        }
        if (Date.now() > deadline) {
            const status = session.page ? await statusText().catch(() => '?') : '?';
            await failureScreenshot();
            throw new Error(`timed out after ${timeoutMs} ms waiting until ${what} (status bar: "${status}")`
                + (lastError ? `; last error: ${lastError}` : ''));
        }
        await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
}

let failures = 0;

/** A screenshot of the page when a wait times out, to see what it showed instead. */
async function failureScreenshot() {
    failures += 1;
    await session.page?.screenshot({ path: path.join(screenshots, `failure-${failures}.png`) }).catch(() => {});
}

function statusItem() {
    return session.page.locator('.statusbar-item[id$="mutiny.status"]');
}

/** The status bar item's text, icons left out: `mutiny 4/9`, `11 missed`. */
async function statusText() {
    return (await statusItem().innerText()).replace(/\s+/g, ' ').trim();
}

/** The name of the status bar item's icon: `beaker`, `sync`, `warning`, `error`, `debug-pause`. */
async function statusIcon() {
    const classes = await statusItem().locator('.codicon').first().getAttribute('class');
    return /codicon-([a-z-]+?)(?:\s|$)/.exec(classes ?? '')?.[1]?.replace(/~spin$/, '');
}

/** Runs a command from the command palette by its title. */
async function runCommand(title) {
    const page = session.page;
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.fill(`>${title}`);
    const label = async (row) => (await row.innerText()).split('\n')[0].trim();
    const rows = page.locator('.quick-input-widget .monaco-list-row');
    await waitFor(async () => (await Promise.all((await rows.all()).map(label))).includes(title), UI_MS,
        `the palette offers "${title}"`);
    // Fuzzy matching may rank another command first: walk down to ours.
    const focused = page.locator('.quick-input-widget .monaco-list-row.focused');
    for (let i = 0; i < 20 && (await label(focused)) !== title; i++) {
        await page.keyboard.press('ArrowDown');
    }
    assert.equal(await label(focused), title);
    await page.keyboard.press('Enter');
    // The palette closes; a command that opens a picker of its own (Show
    // Mutant Diff) may reuse the widget before it is ever seen hidden, with
    // an input that no longer holds the command.
    const widget = page.locator('.quick-input-widget');
    await waitFor(async () => !(await widget.isVisible()) || !(await input.inputValue()).startsWith('>'), UI_MS,
        `the palette closes after running "${title}"`, 50);
}

/** Opens a file of the workspace through Quick Open. */
async function openFile(relative) {
    const page = session.page;
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.fill(relative);
    const row = page.locator('.quick-input-widget .monaco-list-row.focused');
    await waitFor(async () => (await row.innerText()).includes(path.basename(relative)), UI_MS,
        `Quick Open offers ${relative}`);
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
    await page.locator('.tab.active', { hasText: path.basename(relative) }).waitFor();
}

async function focusEditor() {
    await runCommand('View: Focus Active Editor Group');
}

async function goToLine(line, column) {
    const page = session.page;
    await page.keyboard.press('Control+G');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.fill(`:${line}:${column}`);
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
    await waitFor(async () => (await page.locator('.statusbar-item[id="status.editor.selection"]').innerText())
        .includes(`Ln ${line}, Col ${column}`), UI_MS, `the cursor is at ${line}:${column}`);
}

function normalize(text) {
    return text.replace(/\u00a0/g, ' ');
}

/** The pids of mutiny servers started for this test's workspace. */
function mutinyProcesses() {
    const pids = [];
    for (const entry of fs.readdirSync('/proc')) {
        if (!/^\d+$/.test(entry)) {
            continue;
        }
        try {
            const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
            const cwd = fs.readlinkSync(`/proc/${entry}/cwd`);
            if (cmdline[0] === mutinyBin && cmdline[1] === 'lsp' && cwd === session.workspace) {
                pids.push(Number(entry));
            }
        } catch {
            // Gone, or not ours to read.
        }
    }
    return pids;
}
