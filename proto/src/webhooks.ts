// Records, request schemas and NATS operations of the webhooks service.
export {};
