// test, [ ... ] and [[ ... ]]: they only test their arguments, with two exceptions in bash. `-v NAME`
// (and `-R`) with an array subscript, and in [[ ]] the arithmetic comparisons (-eq, -lt, ...), evaluate
// text as an arithmetic expression, and `a[$(cmd)]` there runs cmd even from a quoted literal.
import type { Word } from '../shellWords.js';
import { ALLOW, ASK, DENY, strictest, type PolicyDecision } from '../types.js';

const NAME_TESTS = new Set(['-v', '-R']);
const ARITHMETIC = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);
const INTEGER = /^\s*[+-]?\d+\s*$/;

/**
 * Judges the words of a test expression in order (operators included). `double`: the words come from
 * `[[ ... ]]`, where operators are fixed by the parser and arithmetic comparisons evaluate their operands.
 */
export function decideTestExpression(words: Word[], double: boolean): PolicyDecision {
  const id = double ? '[[' : 'test';
  let d = ALLOW(`${id} only tests its arguments`, 'command:read-only:test');
  const computed = words.some((w) => !w.literal);
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (!w.literal) continue;
    if (NAME_TESTS.has(w.text)) {
      const name = words[i + 1];
      if (!name) continue;
      if (name.literal && name.text.includes('[') && !/^\w+\[\d+\]$/.test(name.text))
        return DENY(`${id} ${w.text} ${name.text}: bash evaluates the subscript as arithmetic, which runs any $(...) in it`, 'command:exec:test');
      if (!name.literal)
        d = strictest(
          d,
          ASK(`${id} ${w.text} ${name.text}: the name is only known at run time, and a subscript in it would run as code`, 'command:computed-argument'),
        );
    }
    if (double && ARITHMETIC.has(w.text)) {
      for (const operand of [words[i - 1], words[i + 1]]) {
        if (!operand) continue;
        if (!operand.literal)
          d = strictest(
            d,
            ASK(
              `[[ ... ${w.text} ... ]] evaluates ${operand.text} as arithmetic at run time, where a subscript would run as code; compare with [ ] or test`,
              'command:computed-argument',
            ),
          );
        else if (!INTEGER.test(operand.text))
          return DENY(
            `[[ ... ${w.text} ... ]] evaluates ${JSON.stringify(operand.text)} as arithmetic, which can run code; compare numbers only`,
            'command:exec:test',
          );
      }
    }
  }
  // In test and [ ], an operator can come from an expansion: with a subscript anywhere, that could be -v.
  if (!double && computed && words.some((w) => w.literal && w.text.includes('['))) {
    d = strictest(d, ASK(`${id}: an operator known only at run time could make bash evaluate a subscript as code`, 'command:computed-argument'));
  }
  return d;
}
