// Shared by the grouping-rules tests.
import { expect } from 'vitest';
import { RuleSyntaxError } from '../../../processors/grouping/rules/index.js';

/** Checks that `parse(text)` throws a RuleSyntaxError at `column` saying `problem`. */
export function expectSyntaxError(parse: (text: string) => unknown, text: string, column: number, problem: string): void {
  let caught: unknown;
  try {
    parse(text);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(RuleSyntaxError);
  const error = caught as RuleSyntaxError;
  expect(error.problem).toBe(problem);
  expect(error.column).toBe(column);
  expect(error.message).toBe(`column ${column}: ${problem}`);
  expect(error.rule).toBe(text);
}
