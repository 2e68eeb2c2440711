// How devx hands a line to bash. `--norc`: bash reads ~/.bashrc by itself, even for `-c`, when its stdin is
// a socket (Node's pipes are) and SHLVL is below 2 (an editor or a service started devx). The line would
// then run after a startup file nobody judged, and every such spawn would pay for that file (pyenv, nvm).

/** bash's arguments for running `line`, without any startup file. */
export const bashArgs = (line: string): string[] => ['--norc', '-c', line];

/** The whole command line: bash running `line`, without any startup file. */
export const bashLine = (line: string): string[] => ['bash', ...bashArgs(line)];
