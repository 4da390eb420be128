const [command] = process.argv.slice(2);
if (command === 'dev') {
  console.log('webhook-inbox dev: local mode is not built yet (see the local-mode issue).');
  process.exit(0);
}
console.error(`webhook-inbox: unknown command ${command ?? ''}`.trim());
process.exit(2);
