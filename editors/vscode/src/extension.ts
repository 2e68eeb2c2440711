// devx in VS Code: the command palette entries, the editor's selection and diagnostics as context, and
// devx's proposed edits in VS Code's diff editor. The logic lives in core/ (no `vscode` import there);
// this file binds it to the VS Code API. The bridge: the extension is an ACP client of `devx --acp`.
import path from 'node:path';
import fs from 'node:fs';
import * as vscode from 'vscode';
import { DevxAcpClient, describeUpdate, type EditorHost } from './core/acpClient.js';
import { captureDevx, commandLine, resolveDevx } from './core/devxCommand.js';
import { parseAgentList, parseWorkflowList, renderAuditLog } from './core/lists.js';
import { offersAlways, type Choice, type Proposal } from './core/proposal.js';
import { buildSelectionPrompt, type DiagnosticInfo, type Severity } from './core/selectionPrompt.js';

const SCHEME = 'devx-proposal';
const PENDING_KEY = 'devx.proposalPending';

let output: vscode.OutputChannel;
/** One `devx --acp` per workspace folder, started on first use. */
const clients = new Map<string, Promise<DevxAcpClient>>();
/** The virtual documents of the diffs on show (old and proposed text), by URI. */
const virtualDocs = new Map<string, string>();
/** The proposal waiting for the user (the accept/reject commands answer it); the next ones wait their turn. */
let pending: { resolve: (c: Choice | undefined) => void } | null = null;
let proposals: Promise<unknown> = Promise.resolve();

function devxArgv(): string[] {
  return resolveDevx(vscode.workspace.getConfiguration('devx').get<string>('path'));
}

function folderFor(uri?: vscode.Uri): string | undefined {
  const f = (uri && vscode.workspace.getWorkspaceFolder(uri)) ?? vscode.workspace.workspaceFolders?.[0];
  return f?.uri.fsPath;
}

function requireFolder(): string {
  const folder = folderFor(vscode.window.activeTextEditor?.document.uri);
  if (!folder) throw new Error('devx works in a folder: open one first (File > Open Folder)');
  return folder;
}

function terminal(folder: string, argv: string[], name = 'devx'): vscode.Terminal {
  const t = vscode.window.createTerminal({ name, cwd: folder });
  t.show();
  t.sendText(commandLine(argv));
  return t;
}

const SEVERITY: Record<number, Severity> = {
  [vscode.DiagnosticSeverity.Error]: 'error',
  [vscode.DiagnosticSeverity.Warning]: 'warning',
  [vscode.DiagnosticSeverity.Information]: 'info',
  [vscode.DiagnosticSeverity.Hint]: 'hint',
};

function diagnosticsOf(uri: vscode.Uri): DiagnosticInfo[] {
  return vscode.languages.getDiagnostics(uri).map((d) => ({
    line: d.range.start.line + 1,
    severity: SEVERITY[d.severity] ?? 'info',
    message: d.message,
    source: d.source,
    code: d.code === undefined ? undefined : String(typeof d.code === 'object' ? d.code.value : d.code),
  }));
}

// ---- diffs of proposed edits -------------------------------------------------------------------

function virtualUri(file: string, id: string, side: 'old' | 'new'): vscode.Uri {
  return vscode.Uri.file(file).with({ scheme: SCHEME, query: `id=${encodeURIComponent(id)}&side=${side}` });
}

async function closeProposalTabs(): Promise<void> {
  const tabs = vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === SCHEME);
  if (tabs.length) await vscode.window.tabGroups.close(tabs);
}

async function showProposal(p: Proposal, options: Parameters<EditorHost['decide']>[1]): Promise<Choice | undefined> {
  const always = offersAlways(options);
  if (!p.diffs.length) {
    // Not an edit (a command, a fetch, an MCP tool): a modal with what devx would run.
    const picked = await vscode.window.showWarningMessage(
      `devx wants to: ${p.title}`,
      { modal: true, detail: p.preview?.slice(0, 2000) },
      'Allow',
      ...(always ? ['Allow always (this session)'] : []),
      'Reject',
    );
    return picked === 'Allow' ? 'accept' : picked?.startsWith('Allow always') ? 'acceptAlways' : 'reject';
  }
  const uris: string[] = [];
  for (const d of p.diffs) {
    const left = virtualUri(d.path, p.toolCallId, 'old');
    const right = virtualUri(d.path, p.toolCallId, 'new');
    virtualDocs.set(left.toString(), d.oldText);
    virtualDocs.set(right.toString(), d.newText);
    uris.push(left.toString(), right.toString());
    const name = path.basename(d.path);
    await vscode.commands.executeCommand('vscode.diff', left, right, `${name}${d.isNew ? ' (new file)' : ''} ↔ proposed by devx`, { preview: false });
  }
  await vscode.commands.executeCommand('setContext', PENDING_KEY, true);
  const answered = new Promise<Choice | undefined>((resolve) => (pending = { resolve }));
  const buttons = ['Accept', ...(always ? ['Accept always (this session)'] : []), 'Reject'];
  void vscode.window.showInformationMessage(`devx: ${p.title}`, ...buttons).then((b) => {
    if (!b) return; // dismissed: the diff's title buttons (or the palette) still answer
    pending?.resolve(b === 'Accept' ? 'accept' : b.startsWith('Accept always') ? 'acceptAlways' : 'reject');
  });
  try {
    return await answered;
  } finally {
    pending = null;
    await vscode.commands.executeCommand('setContext', PENDING_KEY, false);
    await closeProposalTabs();
    for (const u of uris) virtualDocs.delete(u);
  }
}

// ---- the editor as devx's file system ----------------------------------------------------------

const host: EditorHost = {
  readBuffer(file) {
    return vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === file)?.getText();
  },
  async writeFile(file, content) {
    const uri = vscode.Uri.file(file);
    const edit = new vscode.WorkspaceEdit();
    if (!fs.existsSync(file)) {
      edit.createFile(uri, { ignoreIfExists: true });
      edit.insert(uri, new vscode.Position(0, 0), content);
    } else {
      const doc = await vscode.workspace.openTextDocument(uri);
      edit.replace(uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), content);
    }
    if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`VS Code refused the edit of ${file}`);
    // Saved, so what devx runs next (tests, a build) sees it; undo in the editor still reverts it.
    if (vscode.workspace.getConfiguration('devx').get<boolean>('saveEdits', true)) await (await vscode.workspace.openTextDocument(uri)).save();
  },
  decide(p, options) {
    const shown = proposals.then(() => showProposal(p, options));
    proposals = shown.catch(() => undefined);
    return shown;
  },
  onUpdate(n) {
    const u = n.update;
    if (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text') output.append(u.content.text);
    else {
      const line = describeUpdate(u);
      if (line) output.appendLine(`\n${line}`);
    }
  },
  log(line) {
    if (vscode.workspace.getConfiguration('devx').get<boolean>('showLog', false)) output.appendLine(`[devx] ${line}`);
  },
};

async function clientFor(folder: string): Promise<DevxAcpClient> {
  let c = clients.get(folder);
  if (c) {
    const live = await c.catch(() => null);
    if (live?.running) return live;
  }
  c = (async () => {
    const client = await DevxAcpClient.start({ argv: devxArgv(), cwd: folder, host });
    await client.newSession(folder);
    return client;
  })();
  clients.set(folder, c);
  c.catch(() => clients.delete(folder));
  return c;
}

// ---- commands ----------------------------------------------------------------------------------

async function askAboutSelection(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) throw new Error('open a file and select the code to ask about');
  const folder = requireFolder();
  const doc = editor.document;
  const sel = editor.selection;
  // Nothing selected: the line the cursor is on.
  const range = sel.isEmpty ? doc.lineAt(sel.active.line).range : new vscode.Range(sel.start, sel.end);
  const endLine = range.end.character === 0 && range.end.line > range.start.line ? range.end.line - 1 : range.end.line;
  const question = await vscode.window.showInputBox({ title: 'devx: Ask about selection', prompt: 'What do you want to know or change?' });
  if (question === undefined) return;
  const text = buildSelectionPrompt(question, {
    file: doc.uri.fsPath,
    root: folder,
    languageId: doc.languageId,
    startLine: range.start.line + 1,
    endLine: endLine + 1,
    text: doc.getText(new vscode.Range(range.start.line, 0, endLine, doc.lineAt(endLine).text.length)),
    diagnostics: diagnosticsOf(doc.uri),
    dirty: doc.isDirty,
  });
  output.show(true);
  output.appendLine(`\n── you ──\n${text}\n── devx ──`);
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'devx is working…', cancellable: true },
    async (_progress, token) => {
      const client = await clientFor(folder);
      token.onCancellationRequested(() => void client.cancel());
      try {
        const r = await client.prompt(text);
        output.appendLine(r.stopReason === 'end_turn' ? '' : `\n(${r.stopReason})`);
      } finally {
        // A turn that ended (cancelled, failed) while its proposal was on show: devx no longer waits for it.
        pending?.resolve('reject');
      }
    },
  );
}

async function runAgent(): Promise<void> {
  const folder = requireFolder();
  const argv = devxArgv();
  const agents = parseAgentList(await captureDevx(argv, ['agent', 'list', '--json'], folder));
  const picked = await vscode.window.showQuickPick(
    agents.map((a) => ({ label: a.name, description: a.scope, detail: a.description })),
    { title: 'devx: Run agent', placeHolder: 'the agent to run' },
  );
  if (!picked) return;
  const prompt = await vscode.window.showInputBox({ title: `devx agent run ${picked.label}`, prompt: 'The task for the agent' });
  if (!prompt) return;
  terminal(folder, [...argv, 'agent', 'run', picked.label, prompt], `devx: ${picked.label}`);
}

async function runWorkflow(): Promise<void> {
  const folder = requireFolder();
  const argv = devxArgv();
  const workflows = parseWorkflowList(await captureDevx(argv, ['workflow', 'list', '--json'], folder));
  const items: (vscode.QuickPickItem & { run?: string[] })[] = [
    ...workflows.map((w) => ({ label: w.name, description: w.scope, detail: `${w.description} (${w.steps.join(' → ')})` })),
    { label: 'status', description: 'devx workflow status', detail: 'every workflow: where it stands', run: ['workflow', 'status'] },
  ];
  const picked = await vscode.window.showQuickPick(items, { title: 'devx: Run workflow', placeHolder: 'the workflow to run' });
  if (!picked) return;
  if (picked.run) return void terminal(folder, [...argv, ...picked.run], 'devx workflow');
  const w = workflows.find((x) => x.name === picked.label)!;
  let mode: string | undefined;
  if (w.modes.length) {
    mode = await vscode.window.showQuickPick(w.modes, { title: `${w.name}: where it starts` });
    if (!mode) return;
  }
  const request = await vscode.window.showInputBox({ title: `devx workflow run ${w.name}`, prompt: 'The request' });
  if (!request) return;
  terminal(folder, [...argv, 'workflow', 'run', w.name, ...(mode ? ['--mode', mode] : []), request], 'devx workflow');
}

let auditChannel: vscode.OutputChannel | undefined;
async function showAudit(): Promise<void> {
  const folder = requireFolder();
  auditChannel ??= vscode.window.createOutputChannel('devx audit');
  let lines: string[];
  try {
    lines = (await captureDevx(devxArgv(), ['audit', 'tail', '-n', '200'], folder)).split('\n');
  } catch {
    // devx could not run: the log itself.
    const file = path.join(folder, '.devx', 'audit.jsonl');
    lines = fs.existsSync(file) ? renderAuditLog(fs.readFileSync(file, 'utf8'), 200) : [`no audit log yet (${file})`];
  }
  auditChannel.clear();
  auditChannel.appendLine(lines.join('\n').trimEnd() || 'the audit log is empty');
  auditChannel.show(true);
}

function startSession(): void {
  terminal(requireFolder(), devxArgv());
}

async function stopSessions(): Promise<void> {
  const all = [...clients.values()];
  clients.clear();
  for (const c of all) await (await c.catch(() => null))?.dispose();
}

function guarded(fn: () => unknown): () => Promise<void> {
  return async () => {
    try {
      await fn();
    } catch (err) {
      void vscode.window.showErrorMessage(`devx: ${(err as Error).message}`);
    }
  };
}

export function activate(context: vscode.ExtensionContext): void {
  output = vscode.window.createOutputChannel('devx');
  context.subscriptions.push(
    output,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, { provideTextDocumentContent: (uri) => virtualDocs.get(uri.toString()) ?? '' }),
    vscode.commands.registerCommand('devx.startSession', guarded(startSession)),
    vscode.commands.registerCommand('devx.askAboutSelection', guarded(askAboutSelection)),
    vscode.commands.registerCommand('devx.runAgent', guarded(runAgent)),
    vscode.commands.registerCommand('devx.runWorkflow', guarded(runWorkflow)),
    vscode.commands.registerCommand('devx.showAuditLog', guarded(showAudit)),
    vscode.commands.registerCommand('devx.acceptProposal', () => pending?.resolve('accept')),
    vscode.commands.registerCommand('devx.rejectProposal', () => pending?.resolve('reject')),
    vscode.commands.registerCommand('devx.stopSession', guarded(stopSessions)),
    { dispose: () => void stopSessions() },
  );
}

export async function deactivate(): Promise<void> {
  await stopSessions();
}
