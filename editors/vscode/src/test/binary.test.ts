import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';

import { LookupEnv, findBinary, processEnv } from '../binary';

const fakeEnv = (executables: string[], extra: Partial<LookupEnv> = {}): LookupEnv => ({
    pathVariable: '/usr/local/bin:/home/me/.cargo/bin',
    workspaceFolder: '/work/crate',
    home: '/home/me',
    platform: 'linux',
    isExecutable: (file) => executables.includes(file),
    ...extra,
});

test('a bare name is looked up on PATH, first directory first', () => {
    const env = fakeEnv(['/home/me/.cargo/bin/mutiny', '/usr/local/bin/mutiny']);
    assert.deepEqual(findBinary('mutiny', env), { found: true, path: '/usr/local/bin/mutiny' });
    assert.deepEqual(findBinary(undefined, fakeEnv(['/home/me/.cargo/bin/mutiny'])), {
        found: true,
        path: '/home/me/.cargo/bin/mutiny',
    });
    assert.deepEqual(findBinary('  ', fakeEnv(['/home/me/.cargo/bin/mutiny'])), {
        found: true,
        path: '/home/me/.cargo/bin/mutiny',
    });
});

test('a path is taken as is, with ~ and ${workspaceFolder} expanded and relative to the workspace', () => {
    const env = fakeEnv(['/home/me/bin/mutiny', '/work/crate/target/debug/mutiny', '/opt/mutiny']);
    assert.deepEqual(findBinary('/opt/mutiny', env), { found: true, path: '/opt/mutiny' });
    assert.deepEqual(findBinary('~/bin/mutiny', env), { found: true, path: '/home/me/bin/mutiny' });
    assert.deepEqual(findBinary('${workspaceFolder}/target/debug/mutiny', env), {
        found: true,
        path: '/work/crate/target/debug/mutiny',
    });
    assert.deepEqual(findBinary('target/debug/mutiny', env), { found: true, path: '/work/crate/target/debug/mutiny' });
});

test('a missing binary gives a message that says how to fix it', () => {
    const notOnPath = findBinary('mutiny', fakeEnv([]));
    assert.equal(notOnPath.found, false);
    assert.ok(!notOnPath.found);
    assert.match(notOnPath.message, /^mutiny not found/);
    assert.match(notOnPath.message, /mutiny is not on PATH/);
    assert.match(notOnPath.message, /cargo install --path server/);
    assert.match(notOnPath.message, /mutiny\.server\.path/);
    const missingPath = findBinary('/opt/nothing/mutiny', fakeEnv([]));
    assert.ok(!missingPath.found);
    assert.match(missingPath.message, /\/opt\/nothing\/mutiny does not exist or is not executable/);
});

test('only executable files count', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mutiny-binary-'));
    try {
        const plain = path.join(dir, 'mutiny');
        fs.writeFileSync(plain, '#!/bin/sh\n');
        fs.chmodSync(plain, 0o644);
        const env = { ...processEnv(dir), pathVariable: dir };
        assert.equal(findBinary('mutiny', env).found, false);
        fs.chmodSync(plain, 0o755);
        assert.deepEqual(findBinary('mutiny', env), { found: true, path: plain });
        assert.equal(findBinary(dir, env).found, false, 'a directory is not a binary');
    } finally {
        fs.rmSync(dir, { recursive: true, force: true });
    }
});
