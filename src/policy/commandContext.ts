// What judging one command line needs and collects (shared by decideCommand.ts and checkWords.ts).
import type { Parser } from 'web-tree-sitter';
import type { PathPolicyContext } from './pathPolicy.js';
import type { PermissionRules } from './permissions.js';

export interface CommandPolicyContext {
  parser: Parser;
  paths: PathPolicyContext;
  headless: boolean;
  sandboxed: boolean;
  permissions?: PermissionRules;
  /** Plan mode: only read-only commands may run. */
  readOnly?: boolean;
  /** Filled while judging: what the line was found to write and whether it runs project code (the claim). */
  effects?: Effects;
}

export interface Effects {
  writes: Set<string>;
  build: boolean;
  git: boolean;
}
