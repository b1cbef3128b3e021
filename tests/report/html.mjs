// Drives mutiny's HTML report in a real browser: Debian's Chromium through
// playwright-core (no browser download). Opens the page from its file:// URL
// and checks that the file tree shows a score per folder and file whose
// links lead to the files, that a click on a missed mutant shows its diff,
// that the status filter leaves only the missed mutants, and that the page
// requested nothing but itself and logged no error.
// Usage: node html.mjs REPORT.html SCREENSHOT.png
// Environment: CHROMIUM, the browser (default /usr/bin/chromium).
// Exit 0 if every check passed; 1 with the failed check on stderr if not.
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const [report, screenshot] = process.argv.slice(2);
if (!report || !screenshot) {
  console.error('usage: node html.mjs REPORT.html SCREENSHOT.png');
  process.exit(2);
}
const url = pathToFileURL(path.resolve(report)).href;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const viewport = { width: 1280, height: 1200 };
  const page = await browser.newPage({ viewport });
  page.setDefaultTimeout(10_000);
  const requests = [];
  const errors = [];
  page.on('request', (request) => {
    if (request.url() !== url) requests.push(request.url());
  });
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(url);

  // The tree: a score on every folder and file, each file a link to its
  // section, which has the same score.
  const tree = page.locator('nav .tree');
  await tree.first().waitFor();
  const folders = await tree.locator('.folder').count();
  assert.ok(folders > 0, 'the tree shows folders');
  const links = tree.locator('a.file');
  const fileCount = await links.count();
  assert.ok(fileCount > 0, 'the tree shows files');
  assert.equal(fileCount, await page.locator('section.file').count(), 'a link per file');
  for (const score of await tree.locator('.score').allInnerTexts()) {
    assert.match(score, /^(\d+\.\d%|–)$/, 'each score is a percentage');
  }
  for (let i = 0; i < fileCount; i++) {
    const link = links.nth(i);
    const section = page.locator(await link.getAttribute('href'));
    const linkScore = await link.locator('xpath=..').locator('.score').innerText();
    assert.equal(await section.locator('h2 .score').innerText(), linkScore, 'the file shows its score');
  }
  const lastLink = links.nth(fileCount - 1);
  await lastLink.click();
  const lastSection = page.locator(await lastLink.getAttribute('href'));
  const seen = await lastSection.locator('h2').evaluate((h2) => {
    const box = h2.getBoundingClientRect();
    return h2.contains(document.elementFromPoint(box.left + 5, box.top + box.height / 2));
  });
  assert.ok(seen, 'a file link scrolls to the file, its heading in sight');
  await page.evaluate(() => window.scrollTo(0, 0));

  // A missed mutant: its diff is hidden until it is clicked.
  const mutants = page.locator('details.mutant');
  const total = await mutants.count();
  const missed = page.locator('details.mutant[data-status="missed"]');
  const missedCount = await missed.count();
  assert.ok(missedCount > 0, 'the report has missed mutants');
  const first = missed.first();
  const diff = first.locator('.diff');
  assert.equal(await diff.isVisible(), false, 'a diff is hidden at first');
  await first.locator('summary').click();
  await diff.waitFor({ state: 'visible' });
  const diffText = await diff.innerText();
  assert.match(diffText, /^\+[^+]/m, 'the diff shows an added line');
  assert.match(diffText, /^-[^-]/m, 'the diff shows a removed line');
  await page.screenshot({ path: screenshot });

  // The filter: only missed, then everything again.
  const filter = page.locator('#filter');
  const boxes = filter.locator('input[type="checkbox"]');
  assert.ok(await boxes.count() > 1, 'a checkbox per status');
  assert.match(await filter.locator('label.missed').innerText(), new RegExp(`\\(${missedCount}\\)`));
  for (const box of await boxes.all()) {
    if ((await box.getAttribute('value')) !== 'missed') await box.uncheck();
  }
  const visible = () => page.locator('details.mutant:visible');
  assert.equal(await visible().count(), missedCount, 'only missed mutants remain');
  for (const status of await visible().evaluateAll((ms) => ms.map((m) => m.dataset.status))) {
    assert.equal(status, 'missed');
  }
  assert.equal(await page.locator('tr.mutants:visible:not(:has(details.missed))').count(), 0,
    'rows without a missed mutant are hidden');
  await filter.locator('input[value="missed"]').uncheck();
  assert.equal(await visible().count(), 0, 'nothing checked, nothing shown');
  for (const box of await boxes.all()) await box.check();
  assert.equal(await visible().count(), total, 'every mutant is back');

  assert.deepEqual(requests, [], 'the page requests nothing but itself');
  assert.deepEqual(errors, [], 'the console shows no error');
  console.log(`${report}: ${fileCount} files, ${total} mutants, ${missedCount} missed; ` +
    `tree, diff, filter checked; screenshot ${screenshot}`);
} finally {
  await browser.close();
}
