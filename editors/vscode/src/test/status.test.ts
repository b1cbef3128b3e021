import assert from 'node:assert/strict';
import { test } from 'node:test';

import { countMissed, pauseToggleCommand, statusView } from '../status';

test('status is idle with a beaker before any job and with nothing missed', () => {
    assert.equal(statusView(undefined, 0).text, '$(beaker) mutiny');
    assert.equal(statusView({ state: 'idle', done: 9, total: 9, title: 'src/lib.rs' }, 0).text, '$(beaker) mutiny');
});

test('status shows done/total with a spinner while a job runs', () => {
    const view = statusView({ state: 'running', done: 4, total: 9, title: 'src/lib.rs' }, 0);
    assert.equal(view.text, '$(sync~spin) mutiny 4/9');
    assert.match(view.tooltip, /src\/lib\.rs/);
    assert.match(view.tooltip, /4 of 9 done/);
});

test('status shows no count while a job has not counted its mutants yet', () => {
    assert.equal(statusView({ state: 'running', done: 0, total: 0, title: 'src/lib.rs' }, 3).text, '$(sync~spin) mutiny');
});

test('status shows the missed count with a warning once idle', () => {
    const idle = { state: 'idle', done: 9, total: 9, title: 'src/lib.rs' } as const;
    assert.equal(statusView(idle, 2).text, '$(warning) 2 missed');
    assert.match(statusView(idle, 1).tooltip, /1 missed mutant —/);
    assert.equal(statusView(undefined, 11).text, '$(warning) 11 missed');
});

test('status says when the server is not running', () => {
    assert.equal(statusView(undefined, 4, 'stopped').text, '$(error) mutiny');
    assert.equal(statusView({ state: 'paused', done: 0, total: 0, title: '' }, 0, 'stopped').text, '$(error) mutiny');
});

test('status says paused, whatever was missed, and that a click resumes', () => {
    const paused = { state: 'paused', done: 0, total: 0, title: '' } as const;
    for (const missed of [0, 11]) {
        const view = statusView(paused, missed);
        assert.equal(view.text, '$(debug-pause) mutiny: paused');
        assert.match(view.tooltip, /Click to resume/);
    }
});

test('a click pauses while running or idle, and resumes while paused', () => {
    const idle = { state: 'idle', done: 9, total: 9, title: 'src/lib.rs' } as const;
    assert.match(statusView(idle, 2).tooltip, /Click to pause/);
    assert.match(statusView({ ...idle, state: 'running', done: 4 }, 0).tooltip, /Click to pause/);
    assert.match(statusView(undefined, 0).tooltip, /Click to pause/);
    assert.equal(pauseToggleCommand(undefined), 'mutiny.pause');
    assert.equal(pauseToggleCommand(idle), 'mutiny.pause');
    assert.equal(pauseToggleCommand({ ...idle, state: 'running' }), 'mutiny.pause');
    assert.equal(pauseToggleCommand({ ...idle, state: 'paused' }), 'mutiny.resume');
});

test('missed mutants are the warnings whose source is mutiny', () => {
    const diagnostics = [
        { source: 'mutiny', severity: 1 },
        { source: 'mutiny', severity: 1 },
        { source: 'mutiny', severity: 2 }, // timed out
        { source: 'mutiny', severity: 0 }, // failing baseline test
        { source: 'rustc', severity: 1 },
        { severity: 1 },
    ];
    assert.equal(countMissed(diagnostics), 2);
    assert.equal(countMissed([]), 0);
});
