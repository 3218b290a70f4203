// Command-line options of the e2e scripts: `--name value`.
'use strict';

/** The value after `--name`, else `fallback`. */
function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

module.exports = { option };
