// `testTimeout` is a global Jest option (ignored for a project inside a multi-project run), so the
// e2e project sets its own: its hooks start whole service stacks.
jest.setTimeout(180_000);
