// Records, request schemas and NATS operations of the recall service.
export {};
