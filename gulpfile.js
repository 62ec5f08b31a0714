const path = require('path');
const { task, src, dest } = require('gulp');

// tsc compiles the TypeScript; the icons and codex files the descriptions point at must sit beside the output.
task('build:icons', () =>
	src(['nodes/**/*.{png,svg,json}', 'credentials/**/*.{png,svg}'], {
		encoding: false,
		base: '.',
	}).pipe(dest(path.resolve('dist'))),
);
