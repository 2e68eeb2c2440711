// PATH entries that are not absolute name programs by the folder a process is in: devx leaves them out.
import { describe, expect, it } from 'vitest';
import { dropRelativePath, withAbsolutePath } from '../../src/util/absolutePath.js';
import { findExecutable } from '../../src/util/findExecutable.js';

describe('PATH without its relative entries', () => {
  it('keeps the absolute entries in order and names the others once, for the person', () => {
    const env: NodeJS.ProcessEnv = { PATH: 'node_modules/.bin::/usr/bin:./x:~/bin:/bin:' };
    const notice = dropRelativePath(env);
    expect(env.PATH).toBe('/usr/bin:/bin');
    expect(notice).toBe(
      'devx: PATH has entries that are not absolute ("node_modules/.bin", "./x", "~/bin"); devx leaves them out: in a repository they would name its own programs.\n',
    );
    expect(dropRelativePath(env)).toBeNull();
  });

  it('drops empty entries (the current folder too) without a word, and leaves an environment without PATH as it is', () => {
    const env: NodeJS.ProcessEnv = { PATH: ':/usr/bin::' };
    expect(dropRelativePath(env)).toBeNull();
    expect(env.PATH).toBe('/usr/bin');
    const none = { HOME: '/h' };
    expect(withAbsolutePath(none)).toBe(none);
    expect(withAbsolutePath({ PATH: 'bin:/usr/bin' }).PATH).toBe('/usr/bin');
  });

  it('findExecutable does not look a name up through a relative entry', () => {
    // `sh` is in /bin on every machine this runs on; `.` (the test's folder) never answers for it.
    expect(findExecutable('sh', { PATH: '.:bin' })).toBeNull();
    expect(findExecutable('sh', { PATH: '.:/bin:/usr/bin' })).toMatch(/^\/(usr\/)?bin\/sh$/);
  });
});
