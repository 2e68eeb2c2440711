// Which CI pass runs the suite. The second (DEVX_TEST_SCOPE=tools, with rg, bubblewrap and PostgreSQL on the
// machine) runs only the files vitest.config.ts names TOOL_DEPENDENT; inside them, a case whose outcome a
// sandbox or rg cannot change skips there, the first pass having run it.
export const SECOND_PASS = process.env.DEVX_TEST_SCOPE === 'tools';
