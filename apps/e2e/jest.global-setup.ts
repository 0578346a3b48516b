import { runBuildTargets } from './src/support/build-services';

/** Once per Jest run, before any spec: the build targets of the apps the specs start (writer, mailbox, cli, admin). */
export default function globalSetup(): void {
  runBuildTargets();
}
