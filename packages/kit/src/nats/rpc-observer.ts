/**
 * What a bus reports of each NATS request it answers (`served`) and makes (`called`): the operation's subject
 * (without the namespace), `ok` or the error's code, and the time it took. Kit's metrics.ts counts them.
 */
export interface RpcObserver {
  served(operation: string, code: string, seconds: number): void;
  called(operation: string, code: string, seconds: number): void;
}
