// Every project's bound on one test or hook (jest.preset.js says why); a spec may set its own.
jest.setTimeout(60_000);
