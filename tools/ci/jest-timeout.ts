// `testTimeout` is a global Jest option; this project sets its own (the lint probe is slow on 2 cores).
jest.setTimeout(120_000);
