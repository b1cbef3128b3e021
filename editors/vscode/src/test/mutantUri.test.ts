import assert from 'node:assert/strict';
import { test } from 'node:test';

import { MUTANT_SCHEME, diffTitle, mutantUri, parseMutantUri, splitName } from '../mutantUri';

test('a mutant URI reads back as the same mutant and side', () => {
    const names = [
        'src/lib.rs:58:28: replace && with || in compatible',
        'src/lib.rs:30:9: replace Version::is_stable -> bool with true',
        'src/a b.rs:1:1: replace f -> String with "xyzzy" % # ? & = +',
    ];
    for (const name of names) {
        for (const side of ['original', 'mutated'] as const) {
            const uri = mutantUri({ name, side }, 'src/lib.rs');
            assert.equal(uri.scheme, MUTANT_SCHEME);
            assert.match(uri.query, /^[A-Za-z0-9_-]*$/, 'the query needs no escaping');
            assert.deepEqual(parseMutantUri(uri), { name, side });
        }
    }
});

test('a mutant URI path ends with the source path, so the editor sees a Rust file', () => {
    assert.equal(mutantUri({ name: 'n', side: 'mutated' }, 'src/lib.rs').path, '/mutated/src/lib.rs');
    assert.equal(mutantUri({ name: 'n', side: 'original' }, '/abs/src/lib.rs').path, '/original/abs/src/lib.rs');
});

test('URIs of another scheme or with a foreign query are not mutants', () => {
    const ours = mutantUri({ name: 'n', side: 'original' }, 'src/lib.rs');
    assert.equal(parseMutantUri({ scheme: 'file', query: ours.query }), undefined);
    assert.equal(parseMutantUri({ scheme: MUTANT_SCHEME, query: 'name=n' }), undefined);
    assert.equal(parseMutantUri({ scheme: MUTANT_SCHEME, query: '' }), undefined);
    const wrongSide = Buffer.from(JSON.stringify({ name: 'n', side: 'left' })).toString('base64url');
    assert.equal(parseMutantUri({ scheme: MUTANT_SCHEME, query: wrongSide }), undefined);
});

test('a mutant name splits into its location and what it does', () => {
    assert.deepEqual(splitName('src/lib.rs:51:32: replace > with == in matches'), {
        location: 'src/lib.rs:51:32',
        what: 'replace > with == in matches',
    });
    assert.deepEqual(splitName('odd name'), { location: '', what: 'odd name' });
});

test('the diff title names the file, line and change', () => {
    assert.equal(
        diffTitle('src/lib.rs:58:28: replace && with || in compatible'),
        'lib.rs:58: replace && with || in compatible (original ↔ mutated)',
    );
    assert.equal(diffTitle('odd name'), 'odd name (original ↔ mutated)');
});
