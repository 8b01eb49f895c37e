CREATE TABLE "webhook_fanout_batches" (
	"id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"endpoint_id" uuid NOT NULL,
	"after_tx" bigint NOT NULL,
	"after_event_id" uuid NOT NULL,
	"last_tx" bigint NOT NULL,
	"last_event_id" uuid NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"lease_until" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "webhook_fanout_batches_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "webhook_fanout_batches" ADD CONSTRAINT "webhook_fanout_batches_endpoint_fk" FOREIGN KEY ("organization_id","endpoint_id") REFERENCES "public"."webhook_endpoints"("organization_id","id") ON DELETE cascade ON UPDATE no action;