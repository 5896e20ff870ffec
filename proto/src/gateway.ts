// Records, request schemas and NATS operations of the gateway service.
export {};
