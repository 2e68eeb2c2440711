// Named Gemini accounts used round-robin, one per model call.
// An account is either extra environment (its own GEMINI_CLI_HOME or GEMINI_API_KEY) or a wrapper
// command that execs gemini with the arguments devx appends (e.g. ["gemini-account.sh", "1"]).
import * as z from 'zod';

// Built on first use, as settings' schemas are (config/settings.ts).
export const AccountSchema = z.lazy(() =>
  z
    .object({
      name: z.string().min(1),
      env: z.record(z.string(), z.string()).optional(),
      command: z.array(z.string().min(1)).min(1).optional(),
    })
    .strict(),
);

export type Account = z.infer<typeof AccountSchema>;

export const DEFAULT_ACCOUNT: Account = { name: 'default' };

export class AccountRing {
  private index = 0;
  private readonly accounts: Account[];

  constructor(accounts: Account[]) {
    this.accounts = accounts.length ? accounts : [DEFAULT_ACCOUNT];
  }

  get size(): number {
    return this.accounts.length;
  }

  /** The account for the next call; advances the ring. */
  next(): Account {
    const a = this.accounts[this.index % this.accounts.length];
    this.index++;
    return a;
  }

  /** The account next() would return, without advancing. */
  peek(): Account {
    return this.accounts[this.index % this.accounts.length];
  }
}
