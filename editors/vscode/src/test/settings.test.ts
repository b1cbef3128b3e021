import assert from 'node:assert/strict';
import { test } from 'node:test';

import { DEFAULT_SETTINGS, SERVER_KEYS, serverSettings } from '../settings';

const config = (values: Record<string, unknown>) => ({ get: (key: string) => values[key] });

test('settings default to the server defaults when nothing is set', () => {
    assert.deepEqual(serverSettings(config({})), DEFAULT_SETTINGS);
    assert.deepEqual(DEFAULT_SETTINGS, {
        onSave: true,
        onOpen: false,
        jobs: null,
        timeoutMultiplier: null,
        testTool: null,
        additionalCargoArgs: [],
        scope: 'changedFunctions',
        analysis: true,
    });
});

test('settings pass every server key through and leave out the client-only ones', () => {
    const values = {
        'server.path': '/opt/mutiny',
        onSave: false,
        onOpen: true,
        jobs: 3,
        timeoutMultiplier: 2.5,
        testTool: 'nextest',
        additionalCargoArgs: ['--features', 'x'],
        scope: 'file',
        analysis: false,
    };
    const settings = serverSettings(config(values));
    assert.deepEqual(settings, {
        onSave: false,
        onOpen: true,
        jobs: 3,
        timeoutMultiplier: 2.5,
        testTool: 'nextest',
        additionalCargoArgs: ['--features', 'x'],
        scope: 'file',
        analysis: false,
    });
    assert.deepEqual(Object.keys(settings).sort(), [...SERVER_KEYS].sort());
});

test('settings of the wrong type fall back to the defaults instead of reaching the server', () => {
    const settings = serverSettings(
        config({
            onSave: 'yes',
            jobs: 0,
            timeoutMultiplier: -1,
            testTool: 'make',
            additionalCargoArgs: ['--offline', 7],
            scope: 'everything',
            analysis: 'off',
        }),
    );
    assert.deepEqual(settings, { ...DEFAULT_SETTINGS, additionalCargoArgs: ['--offline'] });
    assert.equal(serverSettings(config({ jobs: 2.6 })).jobs, 3);
});

test('every server setting is contributed in package.json with a description and its default', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const manifest = require('../../package.json');
    const properties = manifest.contributes.configuration.properties;
    for (const key of SERVER_KEYS) {
        const property = properties[`mutiny.${key}`];
        assert.ok(property, `mutiny.${key} is contributed`);
        assert.ok(property.markdownDescription || property.description, `mutiny.${key} has a description`);
        assert.deepEqual(property.default, DEFAULT_SETTINGS[key], `mutiny.${key} defaults as the server does`);
    }
    assert.deepEqual(properties['mutiny.testTool'].enum, [null, 'cargo', 'nextest']);
    assert.deepEqual(properties['mutiny.scope'].enum, ['file', 'changedFunctions']);
    assert.equal(properties['mutiny.server.path'].default, 'mutiny');
});
