// The errors a handler throws live in the core; this name stays so handlers here import them from next door.
export * from '../core/events/handler-errors';
