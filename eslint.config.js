import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The sandbox (src/sandbox/) is the platform's emulator, not part of the client: the client
// must not come to depend on the sandbox's choices, and the sandbox must not come to depend
// on the client's. The rule, checked here rather than left to convention:
// - Client code (src/** outside src/sandbox/) imports nothing from src/sandbox/, but for
//   src/cli.ts, which loads the one entry, ./sandbox/main.js, with import() (lazily, so
//   that no other command pays for it).
// - The sandbox imports from the client only the shared modules below (test/unit/layering.test.ts
//   checks the same list against madge's graph, as CI runs the tests), which hold no
//   client behaviour: the API's resource table, JSON narrowing, the control-character
//   class, the loopback and query rules, and the atomic file write.
export const SANDBOX_MAY_IMPORT = ['resources', 'json/narrow', 'output/sanitize', 'config/url', 'config/atomic', 'help/wrap'];

const INTO_SANDBOX = '(^|/)sandbox/';
const OUT_OF_SANDBOX = `^\\.\\./(?!(${SANDBOX_MAY_IMPORT.join('|')})\\.js$)`;

/** no-restricted-imports sees import and export-from declarations; import() needs its own selector. */
function restrict(regex, message) {
  return {
    'no-restricted-imports': ['error', { patterns: [{ regex, message }] }],
    'no-restricted-syntax': ['error', { selector: `ImportExpression[source.value=/${regex.replaceAll('/', '\\/')}/]`, message }],
  };
}

const CLIENT_MESSAGE = 'Client code does not import the sandbox (src/sandbox/); only src/cli.ts loads ./sandbox/main.js, with import(). See eslint.config.js.';
const SANDBOX_MESSAGE = `The sandbox imports from the client only ${SANDBOX_MAY_IMPORT.map((m) => `../${m}.js`).join(', ')}. See eslint.config.js.`;

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', '.stryker-tmp/', 'reports/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', URL: 'readonly', Buffer: 'readonly' } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-control-regex': 'off',
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/sandbox/**', 'src/cli.ts'],
    rules: restrict(INTO_SANDBOX, CLIENT_MESSAGE),
  },
  {
    files: ['src/cli.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: INTO_SANDBOX, message: CLIENT_MESSAGE }] }],
      'no-restricted-syntax': ['error', { selector: `ImportExpression[source.value=/(^|\\/)sandbox\\/(?!main\\.js$)/]`, message: CLIENT_MESSAGE }],
    },
  },
  {
    files: ['src/sandbox/**/*.ts'],
    rules: restrict(OUT_OF_SANDBOX, SANDBOX_MESSAGE),
  },
);
