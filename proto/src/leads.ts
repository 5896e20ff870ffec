// Records, request schemas and NATS operations of the leads service.
export {};
