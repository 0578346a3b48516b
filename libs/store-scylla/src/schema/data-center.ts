import type { Client } from 'cassandra-driver';

/** Nodes of the local DC known to the driver against the RF: a DC with fewer nodes than RF can never hold the data. */
export function dataCenterSizeProblems(client: Client, dataCenter: string, rf: number): string[] {
  const hosts = [...client.hosts.values()].filter((h) => h.datacenter === dataCenter);
  return hosts.length < rf ? [`data center ${dataCenter} has ${hosts.length} node(s), fewer than RF ${rf}`] : [];
}
