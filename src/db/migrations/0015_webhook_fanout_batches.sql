CREATE TABLE "webhook_fanout_batches" (
	"id" uuid PRIMARY KEY NOT NULL,
	"after_tx" bigint NOT NULL,
	"after_event_id" uuid NOT NULL,
	"last_tx" bigint NOT NULL,
	"last_event_id" uuid NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"lease_until" timestamp (3) with time zone NOT NULL
);
