#!/usr/bin/env node
// The registry this project is built against serves only some platform builds of packages with
// per-platform optional dependencies (rollup). npm then leaves the missing ones out of
// package-lock.json and `npm ci` refuses the lock. This adds lock entries for them, with os/cpu/libc
// inferred from the package name, so npm ci skips them on every other platform as it should.
// Run it after regenerating package-lock.json: node scripts/complete-lockfile.mjs
import fs from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const pkgs = lock.packages;
const OS = ['android', 'darwin', 'freebsd', 'linux', 'openbsd', 'openharmony', 'win32', 'sunos', 'netbsd', 'aix'];
const CPU = { 'arm-eabi': 'arm', arm: 'arm', arm64: 'arm64', x64: 'x64', ia32: 'ia32', loong64: 'loong64', ppc64: 'ppc64', riscv64: 'riscv64', s390x: 's390x' };

function platformOf(name) {
  const tail = name
    .split('/')
    .pop()
    .replace(/^rollup-/, '');
  const parts = tail.split('-');
  const os = parts.find((p) => OS.includes(p));
  if (!os) return null;
  const rest = parts.slice(parts.indexOf(os) + 1).join('-');
  const cpuKey = Object.keys(CPU)
    .sort((a, b) => b.length - a.length)
    .find((k) => rest === k || rest.startsWith(`${k}-`));
  if (!cpuKey) return null;
  const suffix = rest.slice(cpuKey.length).replace(/^-/, '');
  const libc = suffix.startsWith('gnu') ? 'glibc' : suffix.startsWith('musl') ? 'musl' : undefined;
  return { os, cpu: CPU[cpuKey], libc };
}

let added = 0;
for (const [where, meta] of Object.entries(pkgs)) {
  for (const [dep, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`;
    if (pkgs[key] || pkgs[`${where}/node_modules/${dep}`]) continue;
    const plat = platformOf(dep);
    if (!plat || !/^\d+\.\d+\.\d+$/.test(version)) continue;
    pkgs[key] = {
      version,
      cpu: [plat.cpu],
      dev: meta.dev || undefined,
      ...(plat.libc ? { libc: [plat.libc] } : {}),
      license: meta.license,
      optional: true,
      os: [plat.os],
    };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(pkgs).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
fs.writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
console.log(`complete-lockfile: added ${added} platform entries`);
