-- A configuration's explicit label (null: derived from its model and effort, or its command)
ALTER TABLE "Configuration" ADD COLUMN "label" TEXT;
