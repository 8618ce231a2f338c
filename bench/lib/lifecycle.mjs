// How a bench script runs: `main`, then `cleanup` (stop workerd, remove temporary state) whether main
// succeeded, threw, or the run was interrupted (Ctrl-C, SIGTERM).
export async function runWithCleanup(main, cleanup) {
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.once(signal, async () => {
      await cleanup();
      process.exit(130);
    });
  }
  try {
    await main();
    await cleanup();
  } catch (error) {
    console.error(error);
    await cleanup();
    process.exit(1);
  }
}
