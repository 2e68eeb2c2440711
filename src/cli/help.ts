export const HELP = `devx: a coding agent that drives the Gemini CLI through a text tool protocol

Usage:
  devx [options]                 start the interactive REPL in this project
  devx run "<prompt>" [options]  run one task headless, then exit
  devx protocol parse            parse a model reply from stdin and print the calls as JSON
  devx policy check [--json] (--read|--write|--list PATH | --command "CMD")
                                 show the decision (allow/ask/deny), its reason and rule
  devx audit tail [-n N] [--json] | grep PATTERN | verify
                                 read or verify the hash-chained audit log
  devx trust [--revoke]          let this project's settings widen the policy
  devx sessions [--json]         list this project's sessions
  devx --resume [id]             continue a session (default: the one that crashed, else the last)
  devx handoff --to claude       write HANDOFF.md (CLAUDE_TURN: READY) from the conversation and stop
  devx handoff --wait            wait for GEMINI_TURN: READY in HANDOFF.md, work on it, hand back
  devx memory add|search|list|delete|import   the knowledge store (see devx memory --help)
  devx --version | --help

Options:
  -m, --model <name>             Gemini model (default: settings "model", else ${'gemini-2.5-pro'})
      --fallback-model <name>    model to use once every account is out of quota
  -y, --yes                      approve every action that would ask (= --approval-mode yolo)
      --approval-mode <mode>     default | auto-edit | yolo | plan (yolo never overrides a deny)
      --max-rounds <n>           tool rounds per turn before stopping (default 25)
      --json                     (run) print a machine-readable transcript on stdout

Exit codes: 0 done, 1 the task failed or stopped, 2 bad usage or settings,
            3 the gemini binary is missing, 4 another session is active here, 130 cancelled.

Settings: ~/.devx/settings.json, .devx/settings.json, .devx/settings.local.json.
Environment: DEVX_MODEL, DEVX_GEMINI_BIN, DEVX_HOME, DEVX_TURN_TIMEOUT_SEC, NO_COLOR.
`;

export const REPL_HELP = `Commands:
  /help      this help
  /tools     the tools the model can call
  /history   the conversation so far
  /clear     forget the conversation and start over
  /todos     the task checkpoint (objective and todo list)
  /resume [id]  restore an earlier session's checkpoint and conversation
  /exit      leave (Ctrl-D works too)
Ctrl-C cancels a running turn; Ctrl-C twice at the prompt exits.`;
