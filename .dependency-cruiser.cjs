// Import rules `npm run lint` enforces with dependency-cruiser: no cycle of any kind between src files, type-only
// imports included (DESIGN §4: every folder sits above the folders it imports).
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A file reaches itself through its imports; move the shared part to a leaf (often a types.ts).',
      from: { path: '^src' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
