// A confirmation shows the whole call and nothing that can pass for devx's own lines: a command padded with
// spaces keeps its start on screen, a diff line cannot wrap into a fake header, arguments are never hidden.
import { describe, expect, it } from 'vitest';
import stringWidth from 'string-width';
import { confirmationText, wholeDiffOf } from '../../src/cli/confirmText.js';
import { unifiedDiff } from '../../src/tools/diffPreview.js';
import { foldBlanks } from '../../src/util/terminalText.js';
import { ASK } from '../../src/policy/types.js';
import { argsPreview, summarizeArgs } from '../../src/tools/types.js';

const decision = ASK('sh runs a shell script', 'command:unknown');
const rows = (text: string) => text.split('\n');

describe('confirmationText', () => {
  it('folds a run of blanks into its length, so the start of a padded command stays beside its end', () => {
    const text = confirmationText({ summary: `run: sh x.sh;${' '.repeat(6000)}sh scripts/status.sh`, decision }, { columns: 120, color: false });
    expect(text).toContain('sh x.sh;⟪6000 blanks⟫sh scripts/status.sh');
    expect(text.length).toBeLessThan(300);
    // Indentation is no run to fold.
    expect(foldBlanks('        return x;')).toBe('        return x;');
  });

  it('wraps each preview line itself, marking every continuation row: a line of spaces cannot draw a fake header', () => {
    const fake = ['? devx wants to write NOTES.md', '--- a/NOTES.md', '+++ b/NOTES.md', '@@ -1 +1,2 @@', '+remember to update the docs'];
    // Each fake line padded to a whole row of a 120-column terminal, after the spaces that push it there.
    const payload = fake.map((l) => l.padEnd(120, ' ')).join('');
    const preview = `--- a/scripts/status.sh\n+++ b/scripts/status.sh\n@@ -0,0 +1,2 @@\n+cat ~/.ssh/id_rsa > /tmp/x\n+${' '.repeat(119)}${payload}`;
    const text = confirmationText({ summary: 'write scripts/status.sh', preview, decision }, { columns: 120, color: false });
    for (const row of rows(text)) {
      expect(stringWidth(row)).toBeLessThanOrEqual(120);
      expect(row.trimStart().startsWith('? devx wants to write NOTES.md')).toBe(false);
      expect(row.trimStart().startsWith('--- a/NOTES.md')).toBe(false);
    }
    expect(text).toContain('+cat ~/.ssh/id_rsa > /tmp/x');
    expect(text).toMatch(/\n {2}↪ /);
  });

  it('wraps by columns, wide characters counted twice', () => {
    const preview = `+${'界'.repeat(200)}`;
    for (const row of rows(confirmationText({ summary: 'write a.txt', preview, decision }, { columns: 80, color: false })))
      expect(stringWidth(row)).toBeLessThanOrEqual(80);
  });

  it("shows a repository line that starts with the continuation mark escaped, and the text's controls and bidi marks", () => {
    const text = confirmationText(
      { summary: 'write a.txt', preview: '+x\n↪ looks like more\n+/*\u202e } if (isAdmin) */\x1b]0;t\x07', decision },
      { columns: 80, color: false },
    );
    expect(text).toContain('  \\↪ looks like more');
    expect(text).toContain('\\u{202e}');
    expect(text).toContain('␛]0;t␇');
  });

  it('repeats the start of a request longer than a few rows by the question', () => {
    const summary = `run: node -e "${'a'.repeat(1500)}"`;
    const text = confirmationText({ summary, decision }, { columns: 80, color: false });
    const tail = rows(text).slice(-3).join('\n');
    expect(tail).toMatch(/\(\d+ characters; it starts: run: node -e "a+…\)/);
  });
});

describe('a cut diff', () => {
  it('says how much was cut, offers [v]iew, and shows the whole diff on it; a whole diff offers nothing', () => {
    const newText = Array.from({ length: 900 }, (_, i) => `row ${i}\n`).join('');
    const plan = { kind: 'create' as const, path: '/p/big.txt', shown: 'big.txt', oldText: null, newText };
    const preview = unifiedDiff('big.txt', '', newText);
    expect(preview).toMatch(/… \(diff cut at 400 lines; \d+ more\)$/);
    expect(preview).not.toContain('+row 899');
    const req = { summary: 'write big.txt (900 lines)', preview, decision, plan };
    expect(confirmationText(req, { color: false })).toMatch(/\[a\]lways this session \/ \[v\]iew the whole diff: $/);
    expect(wholeDiffOf(req)).toContain('+row 899');
    const small = { ...req, preview: unifiedDiff('big.txt', '', 'one\n'), plan: { ...plan, newText: 'one\n' } };
    expect(wholeDiffOf(small)).toBeNull();
    expect(confirmationText(small, { color: false })).toMatch(/\[a\]lways this session: $/);
  });
});

describe('argsPreview', () => {
  it('shows in full what the one-line summary shortened (a long, multi-line or structured value)', () => {
    const args = { command: `cat ~/.ssh/id_rsa > /tmp/out; ${'echo ok; '.repeat(10)}`, opts: { shell: true } };
    expect(summarizeArgs(args)).toMatch(/command=<1 lines>/);
    const preview = argsPreview(args)!;
    expect(preview).toContain('command:\n  cat ~/.ssh/id_rsa > /tmp/out;');
    expect(preview).toContain('opts:\n  {\n    "shell": true\n  }');
    expect(argsPreview({ path: 'a.txt' })).toBeUndefined();
  });
});
