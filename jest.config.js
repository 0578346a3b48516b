// Root Jest run: every project's own jest.config.js, in one process tree, so one run gives one count.
const fs = require('node:fs');
const path = require('node:path');

function projectConfigs() {
  const out = [];
  for (const top of ['libs', 'apps', 'tools']) {
    const dir = path.join(__dirname, top);
    if (!fs.existsSync(dir)) continue;
    for (const name of fs.readdirSync(dir)) {
      const cfg = path.join(dir, name, 'jest.config.js');
      if (fs.existsSync(cfg)) out.push(cfg);
    }
  }
  // Extra targets of a project's specs (not copies): the store-redis specs and contract suites on the
  // Redis Cluster (QIM_TEST_REDIS_CLUSTER_NODES; tools/ci/test-all.sh starts the cluster).
  out.push(path.join(__dirname, 'libs', 'store-redis', 'jest.redis-cluster.config.js'));
  return out;
}

module.exports = { projects: projectConfigs() };
