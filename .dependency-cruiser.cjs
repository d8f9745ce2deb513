// Layer rules and import cycles, checked by `npm run check:deps` and by `npm test`.
// Type-only imports are erased at compile time, so they may close a loop; the layer rules bind them all the same.
// Tests sit beside the code they test and may assemble the whole app (route handlers, the room reducer, workflow
// set-ups), so the layer rules bind the code that ships, not its tests. Cycles are forbidden everywhere.
const testFiles = "\\.test\\.tsx?$";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "lib-imports-no-ui",
      comment: "lib/ is the server and shared logic; the pages and React components sit on top of it, never under it.",
      severity: "error",
      from: { path: "^lib/", pathNot: testFiles },
      to: { path: "^(app|pages|components)/" },
    },
    {
      name: "agents-import-no-workflow",
      comment:
        "The run engine knows no workflow template: templates register what they need with lib/workflows, " +
        "so adding a template never touches lib/agents.",
      severity: "error",
      from: { path: "^lib/agents/", pathNot: testFiles },
      to: { path: "^lib/(brainstorm|build-review|dialogue)/" },
    },
    {
      name: "no-value-cycles",
      comment:
        "A loop of value imports makes the order modules initialise in depend on which one is loaded first. " +
        "Break it by moving the shared piece down a layer, or by importing only types.",
      severity: "error",
      from: {},
      to: {
        circular: true,
        dependencyTypesNot: ["type-only"],
        viaOnly: { dependencyTypesNot: ["type-only"] },
      },
    },
  ],
  options: {
    includeOnly: "^(app|pages|components|lib|db|scripts|bench|e2e|test)/|^(instrumentation|proxy)\\.ts$",
    exclude: { path: "(^|/)(node_modules|\\.next|\\.data|\\.test-data)/" },
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".mjs", ".js", ".cjs", ".json"],
    },
    skipAnalysisNotInRules: true,
    // Unchanged files are not parsed again: the check then takes a few seconds.
    cache: { folder: "node_modules/.cache/dependency-cruiser", strategy: "content" },
  },
};
